// ToolRL's reward (Qian et al. 2025, "ToolRL: Reward is All Tool Learning Needs") for `tool_call`
// mode `toolrl`: the format term (1 when the response has the gold's <think>/<tool_call>/<response>
// layout, else 0) and the correctness term in [-3, 3]: tool-name Jaccard + per matched call
// (parameter-name Jaccard + parameter values equal), predicted and gold calls paired by an optimal
// matching, scaled by 6 / (1 + Σ (1 + #gold parameters)) and shifted by -3.
import { GradeFailure } from '../../core/result.js';
import { parseJsonExact } from '../../core/json.js';
import { callsFromJson, callsFromText } from '../../extract/tool-calls.js';
import { pyEqual, sameFunction, standardizeString } from './check.js';
import { readAccepted } from './reference.js';
import { ParseError, type ToolCall } from './types.js';

export const TOOLRL_MAX = 3;
export const TOOLRL_MIN = -3;

/** One gold call: its name, the parameters that belong to it and their accepted values, and the ones a call may add freely. */
export interface GoldCall {
  name: string;
  /** Parameters of the gold call -> accepted values (one for ToolRL's own gold). */
  params: Record<string, unknown[]>;
  /** BFCL optional parameters ("" among the accepted values): not part of the gold call; given with an accepted value they cost nothing. */
  optional: Record<string, unknown[]>;
}

/** What the gold holds: its calls, the layout the format term asks for, and how names and values compare. */
export interface ToolrlGold {
  calls: GoldCall[];
  /** The gold has a <tool_call> block / a <response> block. */
  toolCall: boolean;
  response: boolean;
  /** BFCL references: names may write `.` as `_`, strings compare after BFCL's standardisation. */
  bfcl: boolean;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const TOOL_BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>/;

function goldFromCalls(calls: ToolCall[]): GoldCall[] {
  return calls.map((c) => ({ name: c.name, params: Object.fromEntries(Object.entries(c.args).map(([k, v]) => [k, [v]])), optional: {} }));
}

function readCallsOrFail(read: () => ToolCall[], what: string): ToolCall[] {
  try {
    return read();
  } catch (e) {
    if (e instanceof ParseError) throw new GradeFailure('bad_input', `${what}: ${e.message}`);
    throw e;
  }
}

/**
 * The gold, in any of three forms: ToolRL's own ground-truth text (`<think>…</think>\n<tool_call>\n{json}\n…</tool_call>`
 * and/or `<response>…</response>`); a list of `{name, parameters|arguments}` calls; or BFCL `possible_answer` entries.
 */
export function readToolrlGold(v: unknown): ToolrlGold {
  if (typeof v === 'string' && (v.includes('<tool_call>') || v.includes('<response>'))) {
    const block = TOOL_BLOCK.exec(v);
    if (v.includes('<tool_call>') && !block) throw new GradeFailure('bad_input', 'reference has <tool_call> but no </tool_call>');
    const calls = block ? readCallsOrFail(() => callsFromText(block[1]!), 'reference <tool_call> block') : [];
    if (block && calls.length === 0) throw new GradeFailure('bad_input', 'reference <tool_call> block holds no call');
    return { calls: goldFromCalls(calls), toolCall: block !== null, response: v.includes('<response>'), bfcl: false };
  }
  let j = v;
  if (typeof j === 'string') {
    try {
      j = parseJsonExact(j);
    } catch {
      throw new GradeFailure('bad_input', 'reference is a string that is neither JSON nor ToolRL text (<tool_call>/<response>)');
    }
  }
  const list = j === null ? [] : Array.isArray(j) ? j : [j];
  if (list.length > 0 && list.every((e) => isObj(e) && typeof e.name === 'string')) {
    const calls = goldFromCalls(readCallsOrFail(() => callsFromJson(list), 'reference'));
    return { calls, toolCall: true, response: false, bfcl: false };
  }
  const calls = readAccepted(list).map((a) => {
    const params: Record<string, unknown[]> = {};
    const optional: Record<string, unknown[]> = {};
    for (const [k, vals] of Object.entries(a.params)) (vals.includes('') ? optional : params)[k] = vals;
    return { name: a.name, params, optional };
  });
  return { calls, toolCall: calls.length > 0, response: calls.length === 0, bfcl: true };
}

/** ToolRL's `match_score`: multiset Jaccard, 1 for identical lists, 0 when either is empty. */
export function matchScore(a: readonly string[], b: readonly string[]): number {
  if (a.length === b.length && a.every((x, i) => x === b[i])) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const count = (l: readonly string[]) => l.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const ca = count(a);
  const cb = count(b);
  let inter = 0;
  for (const [k, n] of ca) inter += Math.min(n, cb.get(k) ?? 0);
  const union = a.length + b.length - inter;
  return union > 0 ? inter / union : 0;
}

function valueOk(v: unknown, accepted: unknown[], bfcl: boolean): boolean {
  return accepted.some((a) => pyEqual(v, a) || (bfcl && bfclEqual(v, a)));
}

/**
 * A value against one BFCL accepted value: strings after BFCL's standardisation, lists element by
 * element, and dicts key by key, where the accepted dict holds a list of accepted values per key
 * (`""` among them: the key may be left out).
 */
function bfclEqual(v: unknown, a: unknown): boolean {
  if (typeof v === 'string' && typeof a === 'string') return standardizeString(v) === standardizeString(a);
  if (Array.isArray(v) && Array.isArray(a)) return v.length === a.length && v.every((x, i) => bfclEqual(x, a[i]));
  if (isObj(v) && isObj(a) && Object.values(a).every(Array.isArray)) {
    const acc = a as Record<string, unknown[]>;
    return (
      Object.entries(v).every(([k, x]) => Object.hasOwn(acc, k) && acc[k]!.some((y) => pyEqual(x, y) || bfclEqual(x, y))) &&
      Object.entries(acc).every(([k, ys]) => Object.hasOwn(v, k) || ys.includes(''))
    );
  }
  return pyEqual(v, a);
}

/** A predicted call against a gold call of the same name: parameter-name Jaccard + number of gold values given equal. */
function pairScore(call: ToolCall, gold: GoldCall, bfcl: boolean): number {
  const keys = Object.keys(call.args).filter((k) => !(k in gold.optional && valueOk(call.args[k], gold.optional[k]!, bfcl)));
  let values = 0;
  for (const [k, accepted] of Object.entries(gold.params)) if (Object.hasOwn(call.args, k) && valueOk(call.args[k], accepted, bfcl)) values++;
  return matchScore(Object.keys(gold.params), keys) + values;
}

/**
 * Maximum-weight assignment of rows to distinct columns (rows <= columns), Hungarian algorithm with
 * potentials, O(rows² · columns). Returns the column of each row.
 */
function assign(w: number[][], cols: number): number[] {
  const n = w.length;
  const INF = Number.POSITIVE_INFINITY;
  const u = new Array<number>(n + 1).fill(0);
  const v = new Array<number>(cols + 1).fill(0);
  const p = new Array<number>(cols + 1).fill(0); // column -> row (1-based), 0 = free
  const way = new Array<number>(cols + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Array<number>(cols + 1).fill(INF);
    const used = new Array<boolean>(cols + 1).fill(false);
    do {
      used[j0] = true;
      const i0 = p[j0]!;
      let delta = INF;
      let j1 = 0;
      for (let j = 1; j <= cols; j++) {
        if (used[j]) continue;
        const cur = -w[i0 - 1]![j - 1]! - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= cols; j++) {
        if (used[j]) {
          u[p[j]!]! += delta;
          v[j]! -= delta;
        } else minv[j]! -= delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const out = new Array<number>(n).fill(-1);
  for (let j = 1; j <= cols; j++) if (p[j]! > 0) out[p[j]! - 1] = j - 1;
  return out;
}

export interface ToolrlCorrectness {
  /** In [-3, 3]. */
  reward: number;
  /** Raw score and its maximum (1 + Σ (1 + #gold parameters)). */
  score: number;
  max: number;
  names: number;
  /** Per gold call: the predicted call matched to it, or -1. */
  pairs: number[];
}

/** ToolRL's correctness term of predicted calls against the gold (gold with no call: 0, as ToolRL). */
export function toolrlCorrectness(calls: ToolCall[], gold: ToolrlGold): ToolrlCorrectness {
  if (gold.calls.length === 0) return { reward: 0, score: 0, max: 0, names: 0, pairs: [] };
  // A predicted name that denotes a gold function (BFCL: `.` written as `_`) counts as that name.
  const canon = (name: string) => (gold.bfcl ? (gold.calls.find((g) => sameFunction(name, g.name))?.name ?? name) : name);
  const names = matchScore(
    gold.calls.map((g) => g.name),
    calls.map((c) => canon(c.name)),
  );
  const max = gold.calls.reduce((m, g) => m + 1 + Object.keys(g.params).length, 1);
  // Optimal matching within each name: a predicted call pairs only with a gold call of its name.
  const pairs = gold.calls.map(() => -1);
  let matched = 0;
  for (const name of new Set(gold.calls.map((g) => g.name))) {
    const gi = gold.calls.flatMap((g, i) => (g.name === name ? [i] : []));
    const pj = calls.flatMap((c, j) => (canon(c.name) === name ? [j] : []));
    if (pj.length === 0) continue;
    const w = gi.map((i) => pj.map((j) => pairScore(calls[j]!, gold.calls[i]!, gold.bfcl)));
    const byGold = gi.length <= pj.length;
    const rows = byGold ? w : pj.map((_, b) => gi.map((_, a) => w[a]![b]!));
    const col = assign(rows, byGold ? pj.length : gi.length);
    col.forEach((c, r) => {
      if (c < 0) return;
      const [a, b] = byGold ? [r, c] : [c, r];
      const s = w[a]![b]!;
      if (s <= 0) return; // ToolRL pairs only a call that scores above 0
      pairs[gi[a]!] = pj[b]!;
      matched += s;
    });
  }
  const score = names + matched;
  const reward = ((TOOLRL_MAX - TOOLRL_MIN) * score) / max + TOOLRL_MIN;
  return { reward, score, max, names, pairs };
}

/** ToolRL's format term: 1 when the (trimmed) response has exactly the gold's layout, else 0. */
export function toolrlFormat(response: string, gold: ToolrlGold): 0 | 1 {
  const t = response.trim();
  const count = (tag: string) => t.split(tag).length - 1;
  const once = (tag: string) => count(`<${tag}>`) === 1 && count(`</${tag}>`) === 1;
  if (gold.response && !gold.toolCall) return /^<think>[\s\S]*?<\/think>\n<response>[\s\S]*?<\/response>$/.test(t) && once('response') ? 1 : 0;
  if (gold.toolCall && !gold.response) return /^<think>[\s\S]*?<\/think>\n<tool_call>\n[\s\S]*?\n<\/tool_call>$/.test(t) && once('tool_call') ? 1 : 0;
  if (gold.toolCall && gold.response)
    return /^<think>[\s\S]*?<\/think>\n<tool_call>\n[\s\S]*?\n<\/tool_call>\n<response>[\s\S]*?<\/response>$/.test(t) && once('tool_call') && once('response')
      ? 1
      : 0;
  return /^<think>[\s\S]*?<\/think>$/.test(t) ? 1 : 0;
}

/** ToolRL reads the calls of the response's first <tool_call> block; undefined when it has none. */
export function firstToolBlock(text: string): string | undefined {
  const open = text.indexOf('<tool_call>');
  if (open < 0) return undefined;
  const close = text.indexOf('</tool_call>', open);
  return close < 0 ? undefined : text.slice(open + '<tool_call>'.length, close);
}
