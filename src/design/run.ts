// The `arbiter design` loop (Eureka's): for K iterations, N candidate reward programs from an
// OpenAI-compatible model (one request each, seeded), each run over every trajectory in the sandbox
// (candidate.ts) and scored by the chosen fitness (fitness.ts); the best of an iteration and its
// reward reflection, with the errors of the failed ones, make the next iteration's prompt
// (prompt.ts). Everything is kept in the run folder: run.json (settings and input digests),
// iter-K/ (each prompt, reply, program and per-trajectory rewards), candidates.jsonl (one record per
// evaluated candidate) and, once a candidate has worked, best/ (the `python` grader and its fitness
// history). --resume reads the folder back: a stored reply is never asked for again and an evaluated
// candidate is never run again, so the same seed and the same replies give the same result.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatClient } from '../models/chat-client.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { candidateCode, evaluateCandidate, graderSource, type Scored } from './candidate.js';
import { componentStats, fitnessOf, type ComponentStats, type FitnessKind, type Preference, type RankMethod } from './fitness.js';
import { firstUserTurn, iterationMessages, reflectionText, type Failure } from './prompt.js';
import { trajectorySchema } from './schema.js';

export const RUN_FORMAT = 'arbiter-design/1';

export class DesignInputError extends Error {
  override name = 'DesignInputError';
}

export interface DesignRow {
  id: string;
  trajectory: unknown;
  item: Record<string, unknown>;
}

export interface DesignSettings {
  model: string;
  baseURL: string;
  iterations: number;
  candidates: number;
  fitness: FitnessKind;
  /** The rank correlation of the rank fitness. */
  rankMethod: RankMethod;
  label: string;
  seed: number;
  temperature: number;
  maxTokens: number;
  callMs: number;
}

export interface DesignInputs {
  task: string;
  rows: DesignRow[];
  preferences: Preference[];
}

export interface CandidateRecord {
  iteration: number;
  index: number;
  seed: number;
  status: 'ok' | 'failed';
  /** Where it failed: no usable code in the reply, the sandbox run, or a fitness that cannot be computed. */
  stage?: 'extract' | 'run' | 'fitness';
  error?: string;
  fitness?: number;
  fitness_detail?: Record<string, number>;
  stats?: Record<string, ComponentStats>;
  files: { prompt: string; reply: string; code?: string; rewards?: string };
}

export interface IterationSummary {
  iteration: number;
  /** Candidates whose program ran and got a fitness. */
  worked: number;
  failed: number;
  best_index?: number;
  best_fitness?: number;
  /** The best fitness of all iterations up to this one. */
  best_so_far?: number;
}

export interface DesignResult {
  records: CandidateRecord[];
  iterations: IterationSummary[];
  best?: CandidateRecord;
  /** Chat requests made by this invocation (resumed candidates make none). */
  modelCalls: number;
}

export interface DesignHooks {
  /** Called after each candidate is evaluated (or read back from the run folder). */
  onCandidate?: (r: CandidateRecord, resumed: boolean) => void;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Label values as numbers (true 1, false 0); undefined unless every row has a number or a boolean. */
function labelNumbers(rows: DesignRow[], label: string): number[] | undefined {
  const out: number[] = [];
  for (const r of rows) {
    const v = r.item[label];
    if (typeof v === 'boolean') out.push(v ? 1 : 0);
    else if (typeof v === 'number' && Number.isFinite(v)) out.push(v);
    else return undefined;
  }
  return out;
}

/** Refuses inputs the chosen fitness cannot be computed on (a usage problem, before any model call). */
export function checkInputs(s: DesignSettings, inp: DesignInputs): void {
  if (inp.rows.length < 2) throw new DesignInputError(`the trajectories file has ${inp.rows.length} trajectory(ies); at least 2 are needed`);
  if (s.fitness === 'preference') {
    if (!inp.preferences.length)
      throw new DesignInputError('--fitness preference needs --preferences FILE (rows {"chosen": id, "rejected": id, "tie"?: true})');
    const ids = new Set(inp.rows.map((r) => r.id));
    const bad = inp.preferences.find((p) => !ids.has(p.chosen) || !ids.has(p.rejected));
    if (bad) throw new DesignInputError(`a preference names a trajectory id that is not in the data: ${JSON.stringify(bad)}`);
  }
  if (s.fitness === 'rank' && !labelNumbers(inp.rows, s.label))
    throw new DesignInputError(`--fitness rank needs a number (or boolean) in item.${s.label} of every trajectory (--label names the field)`);
  if (s.fitness === 'separation' && inp.rows.some((r) => typeof r.item[s.label] !== 'boolean'))
    throw new DesignInputError(`--fitness separation needs a boolean in item.${s.label} of every trajectory (--label names the field)`);
}

function clipJson(v: unknown, n: number): string {
  const t = JSON.stringify(v);
  return t.length > n ? `${t.slice(0, n)} …(cut)` : t;
}

function readJsonl<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  const out: T[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // a line cut off by a kill: that candidate is evaluated again
    }
  }
  return out;
}

function statsOf(scores: Scored[], label: number[] | undefined): Record<string, ComponentStats> {
  const out: Record<string, ComponentStats> = {
    total: componentStats(
      scores.map((s) => s.total),
      label,
    ),
  };
  const names = new Set<string>();
  for (const s of scores) for (const k of Object.keys(s.components ?? {})) names.add(k);
  for (const k of names) {
    // a component some trajectories lack counts 0 there
    out[k] = componentStats(
      scores.map((s) => s.components?.[k] ?? 0),
      label,
    );
  }
  return out;
}

/** The run: reads what the folder holds, asks for and evaluates what is missing, writes the results. */
export async function runDesign(
  s: DesignSettings,
  inp: DesignInputs,
  dir: string,
  deps: { client: ChatClient; pool: SandboxPool; resume: boolean; hooks?: DesignHooks },
): Promise<DesignResult> {
  checkInputs(s, inp);
  const runFile = join(dir, 'run.json');
  const identity = {
    format: RUN_FORMAT,
    model: s.model,
    fitness: s.fitness,
    rank_method: s.rankMethod,
    label: s.label,
    candidates: s.candidates,
    seed: s.seed,
    temperature: s.temperature,
    max_tokens: s.maxTokens,
    call_ms: s.callMs,
    task_sha256: sha256(inp.task),
    trajectories_sha256: sha256(JSON.stringify(inp.rows)),
    preferences_sha256: sha256(JSON.stringify(inp.preferences)),
  };
  if (existsSync(runFile)) {
    if (!deps.resume) throw new DesignInputError(`${dir} already holds a design run (run.json); pass --resume to continue it, or another --out`);
    const old = JSON.parse(readFileSync(runFile, 'utf8')) as Record<string, unknown>;
    const diff = Object.keys(identity).filter((k) => JSON.stringify(old[k]) !== JSON.stringify((identity as Record<string, unknown>)[k]));
    if (diff.length) throw new DesignInputError(`--resume: ${dir} was made with other settings or inputs (${diff.join(', ')} differ)`);
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(runFile, `${JSON.stringify({ ...identity, base_url: s.baseURL, iterations: s.iterations }, null, 2)}\n`);

  const candFile = join(dir, 'candidates.jsonl');
  const done = new Map<string, CandidateRecord>();
  const kept = readJsonl<CandidateRecord>(candFile);
  // a kill may have cut the last line: the file is rewritten with the whole records only
  if (existsSync(candFile) && !readFileSync(candFile, 'utf8').endsWith('\n')) writeFileSync(candFile, kept.map((r) => `${JSON.stringify(r)}\n`).join(''));
  for (const r of kept) done.set(`${r.iteration}/${r.index}`, r);
  const labelNums = labelNumbers(inp.rows, s.label);
  const successes = inp.rows.map((r) => r.item[s.label] === true);
  const ids = inp.rows.map((r) => r.id);
  const trajectories = inp.rows.map((r) => r.trajectory);
  const first = firstUserTurn(inp.task, trajectorySchema(trajectories), clipJson(trajectories[0], 2000), s.fitness, s.label, s.rankMethod);

  const records: CandidateRecord[] = [];
  const iterations: IterationSummary[] = [];
  let best: CandidateRecord | undefined;
  let bestReply: { reply: string; reflection: string } | undefined;
  let fails: Failure[] = [];
  let modelCalls = 0;

  for (let it = 1; it <= s.iterations; it++) {
    const idir = join(dir, `iter-${it}`);
    mkdirSync(idir, { recursive: true });
    const messages = iterationMessages(first, bestReply, fails);
    const promptFile = `iter-${it}/prompt.json`;
    writeFileSync(join(dir, promptFile), `${JSON.stringify(messages, null, 2)}\n`);
    // the replies: stored ones are read back, missing ones asked for (in parallel)
    const replies = await Promise.all(
      Array.from({ length: s.candidates }, async (_, j) => {
        const file = join(idir, `cand-${j}.reply.md`);
        if (existsSync(file)) return readFileSync(file, 'utf8');
        modelCalls++;
        const res = await deps.client.chat({
          model: s.model,
          messages,
          temperature: s.temperature,
          max_tokens: s.maxTokens,
          seed: s.seed + 1000 * (it - 1) + j,
        });
        const text = res.choices[0]?.content ?? '';
        // whole or not at all: a kill mid-write leaves no half reply to resume from
        writeFileSync(`${file}.tmp`, text);
        renameSync(`${file}.tmp`, file);
        return text;
      }),
    );
    const mine: CandidateRecord[] = [];
    for (let j = 0; j < s.candidates; j++) {
      const key = `${it}/${j}`;
      let rec = done.get(key);
      const resumed = rec !== undefined;
      if (!rec) {
        rec = await evaluate(s, it, j, replies[j]!, { dir, promptFile, ids, trajectories, labelNums, successes, prefs: inp.preferences, pool: deps.pool });
        appendFileSync(candFile, `${JSON.stringify(rec)}\n`);
      }
      mine.push(rec);
      records.push(rec);
      deps.hooks?.onCandidate?.(rec, resumed);
    }
    const worked = mine.filter((r) => r.status === 'ok');
    const top = worked.reduce<CandidateRecord | undefined>((a, r) => (a === undefined || r.fitness! > a.fitness! ? r : a), undefined);
    if (top && (best === undefined || top.fitness! > best.fitness!)) best = top;
    // Eureka: the next prompt carries this iteration's best and its reflection (kept from an
    // earlier iteration when none worked here), and here also every failure of this iteration
    if (top) {
      bestReply = {
        reply: replies[top.index]!,
        reflection: reflectionText(
          { iteration: it, index: top.index, fitness: top.fitness!, fitnessDetail: top.fitness_detail ?? {}, stats: top.stats ?? {}, trajectories: ids.length },
          s.fitness,
          s.label,
          s.rankMethod,
        ),
      };
    }
    fails = mine.filter((r) => r.status === 'failed').map((r) => ({ iteration: r.iteration, index: r.index, error: r.error ?? 'failed' }));
    iterations.push({
      iteration: it,
      worked: worked.length,
      failed: mine.length - worked.length,
      ...(top ? { best_index: top.index, best_fitness: top.fitness! } : {}),
      ...(best ? { best_so_far: best.fitness! } : {}),
    });
    writeFileSync(join(dir, 'iterations.json'), `${JSON.stringify(iterations, null, 2)}\n`);
    if (best) writeBest(dir, s, best, iterations);
  }
  return { records, iterations, ...(best ? { best } : {}), modelCalls };
}

async function evaluate(
  s: DesignSettings,
  it: number,
  j: number,
  reply: string,
  c: {
    dir: string;
    promptFile: string;
    ids: string[];
    trajectories: unknown[];
    labelNums: number[] | undefined;
    successes: boolean[];
    prefs: Preference[];
    pool: SandboxPool;
  },
): Promise<CandidateRecord> {
  const base = `iter-${it}/cand-${j}`;
  const rec: CandidateRecord = {
    iteration: it,
    index: j,
    seed: s.seed + 1000 * (it - 1) + j,
    status: 'failed',
    files: { prompt: c.promptFile, reply: `${base}.reply.md` },
  };
  const code = candidateCode(reply);
  if ('error' in code) return { ...rec, stage: 'extract', error: code.error };
  writeFileSync(join(c.dir, `${base}.py`), code.code);
  rec.files.code = `${base}.py`;
  const ev = await evaluateCandidate(code.code, c.trajectories, { pool: c.pool, callMs: s.callMs });
  if (!ev.ok) return { ...rec, stage: 'run', error: ev.error };
  const totals = ev.scores.map((x) => x.total);
  writeFileSync(
    join(c.dir, `${base}.rewards.jsonl`),
    ev.scores.map((x, i) => JSON.stringify({ id: c.ids[i], total: x.total, ...(x.components ? { components: x.components } : {}) })).join('\n') + '\n',
  );
  rec.files.rewards = `${base}.rewards.jsonl`;
  rec.stats = statsOf(ev.scores, c.labelNums);
  const f = fitnessOf(
    s.fitness,
    c.ids,
    totals,
    {
      ...(c.labelNums ? { metric: c.labelNums } : {}),
      success: c.successes,
      prefs: c.prefs,
    },
    s.rankMethod,
  );
  rec.fitness_detail = f.detail;
  if (f.value === undefined) return { ...rec, stage: 'fitness', error: `the fitness cannot be computed: ${f.undefinedWhy}` };
  return { ...rec, status: 'ok', fitness: f.value };
}

/** best/grader.json (the `python` grader) and best/history.json (fitness per iteration). */
function writeBest(dir: string, s: DesignSettings, best: CandidateRecord, iterations: IterationSummary[]): void {
  const bdir = join(dir, 'best');
  mkdirSync(bdir, { recursive: true });
  const code = readFileSync(join(dir, best.files.code!), 'utf8');
  const history = iterations.map((i) => ({ iteration: i.iteration, best_fitness: i.best_fitness ?? null, best_so_far: i.best_so_far ?? null }));
  const grader = {
    type: 'python',
    name: 'designed_reward',
    description: `arbiter design: iteration ${best.iteration}, candidate ${best.index + 1} of ${s.candidates}; fitness (${s.fitness}) ${best.fitness}; best fitness per iteration: ${history
      .map((h) => (h.best_fitness === null ? 'none' : String(Number(h.best_fitness.toFixed(4)))))
      .join(', ')}`,
    source: graderSource(code),
    limits: { time_ms: Math.max(10_000, s.callMs + 5000) },
  };
  writeFileSync(join(bdir, 'grader.json'), `${JSON.stringify(grader, null, 2)}\n`);
  writeFileSync(
    join(bdir, 'history.json'),
    `${JSON.stringify({ fitness: s.fitness, label: s.label, best: { iteration: best.iteration, index: best.index, fitness: best.fitness, fitness_detail: best.fitness_detail, stats: best.stats }, history }, null, 2)}\n`,
  );
}
