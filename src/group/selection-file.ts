// The streaming side of `arbiter select` and `arbiter pairs`: reads `arbiter score` output (and,
// line for line, the input given to score for the texts), groups lines by uid, and writes the
// chosen lines (best-of-N, TRL prompt/completion) or chosen/rejected pairs (TRL's preference
// format: prompt, chosen, rejected, plus score_chosen and score_rejected). A group is decided as
// soon as it has `group_size` lines, else at the end of the input. Every line and group is
// accounted for in the summary: lines without a uid, invalid grades, groups that gave nothing.
import { getPath } from '../io/path.js';
import type { Readable } from 'node:stream';
import { parseJsonExact, stringifyExact } from '../core/json.js';
import { openInput, openOutput } from '../io/files.js';
import { IoError } from '../io/errors.js';
import { readLines, type RawLine } from '../io/jsonl-reader.js';
import { JsonlWriter } from '../io/jsonl-writer.js';
import { canonical, isObj, key, type GroupKey } from './rows.js';
import {
  componentNames,
  envOf,
  pairGroup,
  Rules,
  selectGroup,
  type Candidate,
  type PairOptions,
  type Ranked,
  type SelectOptions,
  type SkipReason,
} from './selection.js';

/** Where the prompt is looked for, in order (the joined sample line first, then the scored line). */
export const PROMPT_FIELDS = ['prompt', 'item.prompt', 'item.question', 'item.problem', 'question', 'problem'] as const;
/** Where the response text is looked for, in order. */
export const COMPLETION_FIELDS = ['sample.output_text', 'output_text', 'response', 'completion'] as const;

export interface SelectionFileOptions {
  /** `arbiter score` output: a path or '-' for stdin. */
  input: string;
  /** The input given to `arbiter score` (line for line), for the prompt and response texts. */
  samples?: string;
  /** Output path; '-' or undefined for stdout. */
  output?: string;
  /** Field holding the group key (default "uid"). */
  groupBy?: string;
  /** Lines per group: a group is decided as soon as it has this many. */
  groupSize?: number;
  /** Dotted path of the prompt (default: the first of PROMPT_FIELDS present). */
  promptField?: string;
  /** Dotted path of the response (default: the first of COMPLETION_FIELDS present). */
  completionField?: string;
}

export interface SelectionSummary {
  lines: number;
  groups: number;
  /** Lines written (selected lines, or pairs). */
  written: number;
  /** Lines that are not a JSON object. */
  malformed_lines: number;
  /** Lines without the group field. */
  no_group_lines: number;
  /** Lines whose grade is invalid (valid: false or score null): they take no part. */
  invalid_lines: number;
  /** Groups that gave nothing, by reason. */
  skipped_groups: Partial<Record<SkipReason, number>>;
  /** Up to five group keys per reason, and the first lines without a group key. */
  examples: Partial<Record<SkipReason | 'no_group', string[]>>;
  duration_s: number;
}

type Mode = { kind: 'select'; opts: SelectOptions } | { kind: 'pairs'; opts: PairOptions };

function find(recs: readonly unknown[], fields: readonly string[]): unknown {
  for (const f of fields)
    for (const r of recs) {
      const v = getPath(r, f);
      if (v !== undefined && v !== null) return v;
    }
  return undefined;
}

function parseObject(raw: RawLine): Record<string, unknown> | undefined {
  if (raw.text === undefined) return undefined;
  try {
    const v = parseJsonExact(raw.text);
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the samples file line for line alongside the scored lines. */
class SampleJoin {
  private readonly it: AsyncIterator<RawLine>;
  constructor(
    stream: Readable,
    private readonly file: string,
  ) {
    this.it = readLines(stream)[Symbol.asyncIterator]();
  }

  /** The sample line matching scored line `line` with id `id` (score writes a missing id as the line number). */
  async next(line: number, id: unknown): Promise<Record<string, unknown> | undefined> {
    const r = await this.it.next();
    if (r.done)
      throw new IoError(`--samples ${this.file} ends before line ${line} of the scored input: it must be the input given to arbiter score, line for line`);
    const rec = parseObject(r.value);
    if (!rec) return undefined; // score graded it as bad_input: that line takes no part anyway
    const own = rec.id ?? line;
    if (id !== undefined && canonical(own) !== canonical(id))
      throw new IoError(
        `line ${line}: the scored line has id ${stringifyExact(id)} but line ${line} of --samples ${this.file} has id ${stringifyExact(own)}: --samples must be the input given to arbiter score, line for line`,
      );
    return rec;
  }
}

const TEXT_HINT = 'pass --samples FILE (the input given to arbiter score), or name the field with';

function textOf(c: Candidate, which: 'prompt' | 'completion', flag: string): unknown {
  const v = c[which];
  if (v === undefined) {
    throw new IoError(
      `line ${c.line}: no ${which} text for the export (looked at ${(which === 'prompt' ? PROMPT_FIELDS : COMPLETION_FIELDS).join(', ')}): ${TEXT_HINT} ${flag}`,
    );
  }
  return v;
}

/** TRL's conversational form: a message-list prompt gets message-list responses. */
function asResponse(prompt: unknown, text: unknown): unknown {
  return Array.isArray(prompt) && typeof text === 'string' ? [{ role: 'assistant', content: text }] : text;
}

function selectedLine(r: Ranked, rank: number, of: number, by: string): Record<string, unknown> {
  const c = r.cand;
  return {
    uid: c.uid,
    id: c.id,
    ...(c.prompt !== undefined ? { prompt: c.prompt } : {}),
    ...(c.completion !== undefined ? { completion: asResponse(c.prompt, c.completion) } : {}),
    score: c.env.score,
    selection: { by, value: r.value, rank, of, tied: r.tied },
  };
}

function pairLine(chosen: Ranked, rejected: Ranked): Record<string, unknown> {
  const prompt = textOf(chosen.cand, 'prompt', '--prompt-field');
  return {
    prompt,
    chosen: asResponse(prompt, textOf(chosen.cand, 'completion', '--completion-field')),
    rejected: asResponse(prompt, textOf(rejected.cand, 'completion', '--completion-field')),
    score_chosen: chosen.value,
    score_rejected: rejected.value,
    uid: chosen.cand.uid,
    chosen_id: chosen.cand.id,
    rejected_id: rejected.cand.id,
  };
}

async function run(mode: Mode, opts: SelectionFileOptions): Promise<SelectionSummary> {
  const t0 = performance.now();
  const filters = mode.kind === 'select' ? { '--where': mode.opts.where } : { '--chosen': mode.opts.chosen, '--rejected': mode.opts.rejected };
  const rules = new Rules(mode.opts, filters);
  const groupBy = opts.groupBy ?? 'uid';
  const input = await openInput(opts.input);
  const join = opts.samples ? new SampleJoin(await openInput(opts.samples, 'samples'), opts.samples) : undefined;
  const toStdout = !opts.output || opts.output === '-';
  const writer = new JsonlWriter(toStdout ? process.stdout : await openOutput(opts.output!), 1 << 20);
  const s: SelectionSummary = {
    lines: 0,
    groups: 0,
    written: 0,
    malformed_lines: 0,
    no_group_lines: 0,
    invalid_lines: 0,
    skipped_groups: {},
    examples: {},
    duration_s: 0,
  };
  const note = (reason: SkipReason | 'no_group', what: string) => {
    const xs = (s.examples[reason] ??= []);
    if (xs.length < 5) xs.push(what);
  };
  const open = new Map<GroupKey, { uid: unknown; cands: Candidate[]; lines: number }>();
  const decide = async (g: { uid: unknown; cands: Candidate[] }) => {
    s.groups++;
    const out = mode.kind === 'select' ? selectGroup(rules, g.cands, mode.opts.top) : pairGroup(rules, g.cands, mode.opts);
    if (typeof out === 'string') {
      s.skipped_groups[out] = (s.skipped_groups[out] ?? 0) + 1;
      note(out, stringifyExact(g.uid));
      return;
    }
    for (const [i, x] of out.entries()) {
      await writer.write('chosen' in x ? pairLine(x.chosen, x.rejected) : selectedLine(x, i + 1, g.cands.length, rules.by.source));
      s.written++;
    }
  };
  try {
    for await (const raw of readLines(input)) {
      if (raw.text !== undefined && raw.text.trim() === '' && !join) continue;
      s.lines++;
      const rec = parseObject(raw);
      const sample = join ? await join.next(raw.line, rec?.id) : undefined;
      if (!rec) {
        s.malformed_lines++;
        continue;
      }
      const k = key(rec[groupBy]);
      if (k === undefined) {
        s.no_group_lines++;
        note('no_group', `line ${raw.line}`);
        continue;
      }
      let g = open.get(k);
      if (!g) open.set(k, (g = { uid: rec[groupBy], cands: [], lines: 0 }));
      g.lines++;
      const env = envOf(rec);
      if (!env) s.invalid_lines++;
      else {
        const recs = sample ? [sample, rec] : [rec];
        const prompt = find(recs, opts.promptField ? [opts.promptField] : PROMPT_FIELDS);
        const completion = find(recs, opts.completionField ? [opts.completionField] : COMPLETION_FIELDS);
        const len = rec.response_length;
        g.cands.push({
          line: raw.line,
          id: rec.id,
          uid: rec[groupBy],
          env,
          names: componentNames(rec),
          ...(typeof len === 'number' && Number.isFinite(len) ? { responseLength: len } : {}),
          ...(prompt !== undefined ? { prompt } : {}),
          ...(completion !== undefined ? { completion } : {}),
        });
      }
      if (opts.groupSize !== undefined && g.lines >= opts.groupSize) {
        open.delete(k);
        await decide(g);
      }
    }
    for (const g of open.values()) await decide(g);
  } finally {
    await writer.close(!toStdout).catch((e: Error) => {
      throw new IoError(`cannot write output ${opts.output ?? 'stdout'}: ${e.message}`);
    });
  }
  s.duration_s = Math.round(performance.now() - t0) / 1000;
  return s;
}

/** `arbiter select`: the best `top` lines per group. */
export function selectFile(opts: SelectionFileOptions & SelectOptions): Promise<SelectionSummary> {
  return run({ kind: 'select', opts }, opts);
}

/** `arbiter pairs`: chosen/rejected pairs per group. */
export function pairsFile(opts: SelectionFileOptions & PairOptions): Promise<SelectionSummary> {
  return run({ kind: 'pairs', opts }, opts);
}

/** The summary as one or two lines for stderr. */
export function formatSelectionSummary(s: SelectionSummary, what: 'selected' | 'pairs'): string {
  const skipped = Object.entries(s.skipped_groups)
    .map(([k, n]) => `${k}=${n}`)
    .join(' ');
  const parts = [
    `${what === 'selected' ? 'selected' : 'wrote'} ${s.written} ${what === 'selected' ? 'line(s)' : 'pair(s)'} from ${s.groups} group(s) of ${s.lines} line(s) in ${s.duration_s.toFixed(2)}s`,
  ];
  if (skipped) parts.push(`groups with none: ${skipped}`);
  if (s.invalid_lines) parts.push(`${s.invalid_lines} invalid line(s) took no part`);
  if (s.no_group_lines)
    parts.push(`${s.no_group_lines} line(s) without the group field (${s.examples.no_group!.join(', ')}${s.no_group_lines > 5 ? ', ...' : ''})`);
  if (s.malformed_lines) parts.push(`${s.malformed_lines} malformed line(s)`);
  return parts.join('; ');
}
