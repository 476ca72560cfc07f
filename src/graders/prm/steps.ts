// Solution steps for process rewards: a sample's own list of steps, or steps split from a text by
// one rule (blank lines, "Step k:" labels, numbered lines, single lines, a custom regex or a literal
// separator), with each step's span in the text so a result can show exactly how it was split.
// Regexes from a config go through the project's load-time screen (nested unbounded quantifiers are
// refused unless allow_unsafe_regex) and a pattern-length cap; texts and step counts are bounded.
import { z } from 'zod';
import { GradeFailure, ResponseFault } from '../../core/result.js';
import { describe as describeValue } from '../../core/sample.js';
import { compileLinear, RegexError, type LinearRegex } from '../format/linear-regex.js';

export const SPLIT_RULES = ['blank_lines', 'step_labels', 'numbered', 'lines', 'regex', 'separator'] as const;
export type SplitRule = (typeof SPLIT_RULES)[number];

/** Longest regex accepted from a config. */
export const MAX_PATTERN_CHARS = 1000;
/** Default caps: characters of text split, and steps per solution. */
export const DEFAULT_MAX_CHARS = 1_000_000;
export const DEFAULT_MAX_STEPS = 512;

export const splitSchema = z.union([
  z.enum(['blank_lines', 'step_labels', 'numbered', 'lines']),
  z.strictObject({ rule: z.enum(['blank_lines', 'step_labels', 'numbered', 'lines']) }),
  z.strictObject({
    rule: z.literal('regex'),
    /** Matches the separators between steps (like String.split); matched text belongs to no step. */
    pattern: z.string().min(1).max(MAX_PATTERN_CHARS),
    flags: z
      .string()
      .regex(/^[imsu]*$/, 'flags may only contain i, m, s, u')
      .optional(),
    allow_unsafe_regex: z.boolean().optional(),
  }),
  z.strictObject({ rule: z.literal('separator'), separator: z.string().min(1).max(MAX_PATTERN_CHARS) }),
]);

export type SplitConfig = z.infer<typeof splitSchema>;

/** One step cut from a text: its content and where that content lies in the text. */
export interface Piece {
  text: string;
  start: number;
  end: number;
}

export interface Splitter {
  rule: SplitRule;
  /** Cuts `text` into steps (empty steps dropped); `markers` counts the labels/separators found. */
  split(text: string): { pieces: Piece[]; markers: number };
}

// Labels at the start of a line: "Step 3:", "Step 3.", "**Step 3:**", "## Step 3 -", "Step 3)".
const STEP_LABEL =
  /^[ \t]{0,8}(?:#{1,6}[ \t]{1,4})?(?:\*\*|__)?[ \t]{0,2}step[ \t]{0,4}\d{1,4}[ \t]{0,4}(?:(?:\*\*|__)[ \t]{0,2}[:.)\-\u2013\u2014]?|[:.)\-\u2013\u2014](?:[ \t]{0,2}(?:\*\*|__))?)/gim;
// Numbers at the start of a line: "1. ", "2) ", "(3) ".
const NUMBERED = /^[ \t]{0,8}(?:\(\d{1,4}\)|\d{1,4}[.)])(?=[ \t]|$)[ \t]*/gm;
const BLANK_LINES = /\n[ \t]*(?:\r?\n[ \t]*)+/g;
const LINES = /\r?\n/g;

/** Pieces between separator matches of `re` (global), trimmed, empty ones dropped. */
function bySeparators(text: string, re: RegExp): { pieces: Piece[]; markers: number } {
  const pieces: Piece[] = [];
  let last = 0;
  let markers = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) {
      // an empty match separates nothing; step past it so the scan always advances
      re.lastIndex++;
      continue;
    }
    markers++;
    push(pieces, text, last, m.index);
    last = m.index + m[0].length;
  }
  push(pieces, text, last, text.length);
  return { pieces, markers };
}

/** Pieces between the given separator spans (non-empty ones), trimmed, empty pieces dropped. */
function bySpans(text: string, spans: readonly { start: number; end: number }[]): { pieces: Piece[]; markers: number } {
  const pieces: Piece[] = [];
  let last = 0;
  let markers = 0;
  for (const s of spans) {
    if (s.end === s.start) continue; // an empty match separates nothing
    markers++;
    push(pieces, text, last, s.start);
    last = s.end;
  }
  push(pieces, text, last, text.length);
  return { pieces, markers };
}

/** Pieces that each start at a marker (the marker itself removed); text before the first marker is a step of its own. */
function byMarkers(text: string, re: RegExp): { pieces: Piece[]; markers: number } {
  const pieces: Piece[] = [];
  const marks: { start: number; end: number }[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    marks.push({ start: m.index, end: m.index + m[0].length });
  }
  if (marks.length === 0) {
    push(pieces, text, 0, text.length);
    return { pieces, markers: 0 };
  }
  push(pieces, text, 0, marks[0]!.start);
  marks.forEach((mk, i) => {
    push(pieces, text, mk.end, i + 1 < marks.length ? marks[i + 1]!.start : text.length);
  });
  return { pieces, markers: marks.length };
}

function push(out: Piece[], text: string, from: number, to: number): void {
  let a = from;
  let b = to;
  while (a < b && /\s/.test(text[a]!)) a++;
  while (b > a && /\s/.test(text[b - 1]!)) b--;
  if (b > a) out.push({ text: text.slice(a, b), start: a, end: b });
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Compiles a split rule. Problems with a configured regex are reported through `issue` (config
 * load): nested unbounded quantifiers unless `allow_unsafe_regex`, or invalid syntax.
 */
export function compileSplitter(cfg: SplitConfig, issue: (field: string, message: string) => void): Splitter {
  const rule = typeof cfg === 'string' ? cfg : cfg.rule;
  switch (rule) {
    case 'blank_lines':
      return { rule, split: (t) => bySeparators(t, new RegExp(BLANK_LINES)) };
    case 'lines':
      return { rule, split: (t) => bySeparators(t, new RegExp(LINES)) };
    case 'step_labels':
      return { rule, split: (t) => byMarkers(t, new RegExp(STEP_LABEL)) };
    case 'numbered':
      return { rule, split: (t) => byMarkers(t, new RegExp(NUMBERED)) };
    case 'separator': {
      const sep = (cfg as { separator: string }).separator;
      const re = new RegExp(escapeRe(sep), 'g');
      return { rule, split: (t) => bySeparators(t, re) };
    }
    case 'regex': {
      // untrusted text: the pattern runs on the linear-time RE2 engine, as format's regexes do
      const c = cfg as { pattern: string; flags?: string; allow_unsafe_regex?: boolean };
      if (c.allow_unsafe_regex) issue('split.allow_unsafe_regex', 'no longer needed: patterns run on the linear-time RE2 engine (remove the field)');
      let re: LinearRegex | undefined;
      try {
        re = compileLinear(c.pattern, (c.flags ?? '').replace('g', ''));
      } catch (e) {
        if (!(e instanceof RegexError)) throw e;
        issue('split.pattern', e.message);
      }
      return { rule, split: (t) => bySpans(t, re?.spans(t) ?? []) };
    }
  }
}

// A leading "Step 3." / "Step 3:" / "3." label (what PRMBench removes before scoring with a PRM),
// except that a decimal number ("4.5 ...") is not a label.
const PREFIX = /^\s*(?:step\s*\d+\s*[.:](?!\d)\s*|\d+\.(?!\d)\s*)/i;

/** Removes one leading step label: "Step 3.", "Step 3:", "step3 :", or "3." (and the spaces after it); "4.5" is kept. */
export function stripStepPrefix(s: string): string {
  return s.trim().replace(PREFIX, '');
}

export interface StepLimits {
  maxChars: number;
  maxSteps: number;
}

/**
 * The steps a sample gives as a list: strings only, within the limits. The steps are the graded
 * response, so a response over a limit is its own doing: a valid floor (ResponseFault).
 */
export function givenSteps(v: unknown, where: string, lim: StepLimits): string[] {
  if (!Array.isArray(v)) throw new GradeFailure('bad_input', `${where} must be a list of step texts, got ${describeValue(v)}`);
  if (v.length > lim.maxSteps) throw new ResponseFault('limit_exceeded', `${where} has ${v.length} steps (limit max_steps=${lim.maxSteps})`);
  let chars = 0;
  v.forEach((s, i) => {
    if (typeof s !== 'string') throw new GradeFailure('bad_input', `${where}[${i}] must be a string, got ${describeValue(s)}`);
    chars += s.length;
  });
  if (chars > lim.maxChars) throw new ResponseFault('limit_exceeded', `${where} holds ${chars} characters (limit max_chars=${lim.maxChars})`);
  return v as string[];
}

/** Splits a text, within the limits. */
export function splitText(text: unknown, where: string, sp: Splitter, lim: StepLimits): { pieces: Piece[]; markers: number } {
  if (typeof text !== 'string') throw new GradeFailure('bad_input', `${where} must be a string to split into steps, got ${describeValue(text)}`);
  if (text.length > lim.maxChars) throw new ResponseFault('limit_exceeded', `${where} has ${text.length} characters (limit max_chars=${lim.maxChars})`);
  const out = sp.split(text);
  if (out.pieces.length > lim.maxSteps)
    throw new ResponseFault('limit_exceeded', `${where} splits into ${out.pieces.length} steps by rule ${sp.rule} (limit max_steps=${lim.maxSteps})`);
  return out;
}

/** Short preview of a step for metadata (the full text stays in the sample). */
export function preview(s: string, n = 80): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`;
}
