// One candidate reward of `arbiter design`: the program read out of a model reply (the fenced
// block, src/extract/fence.ts), run in the sandbox over every trajectory as the code grader's
// function format runs a solution (src/graders/code/formats.ts: one driven run, the candidate in a
// process of its own, a time limit per call, no network, memory caps), what each call returned read
// as a total (a number, per-step numbers summed, Eureka's (total, components) pair or a dict with
// "total" and components), and the `python` grader source that gives the same totals in
// `arbiter score`. A candidate with any call that fails, hangs or returns something else has failed
// with that reason; it is never given a reward of 0.
import { parseJsonExact } from '../core/json.js';
import { GradeFailure } from '../core/result.js';
import { extractCode } from '../graders/code/extract.js';
import { functionReturns, type RunSettings } from '../graders/code/formats.js';
import type { SandboxPool } from '../sandbox/pool.js';

/** What one trajectory got from a candidate. */
export interface Scored {
  total: number;
  components?: Record<string, number>;
}

export type Evaluation = { ok: true; scores: Scored[] } | { ok: false; error: string; failedCalls: number };

const FN = /^[ \t]*def[ \t]+reward[ \t]*\(/m;

/** Longest program taken from a reply, in bytes (it goes back into the next prompt as the best reply). */
export const MAX_CODE_BYTES = 100_000;

/** The program of a reply: the last python (else untagged, else any) fenced block, else the whole reply. */
export function candidateCode(reply: string): { code: string } | { error: string } {
  const ex = extractCode(reply, 'python');
  const code = ex.code.trim();
  if (!code) return { error: 'the reply holds no code' };
  const bytes = Buffer.byteLength(code);
  if (bytes > MAX_CODE_BYTES) return { error: `the program is ${bytes} bytes, over the limit of ${MAX_CODE_BYTES}` };
  if (!FN.test(code)) return { error: 'the code defines no function reward(trajectory)' };
  return { code: `${code}\n` };
}

function isNumber(x: unknown): x is number | bigint {
  return (typeof x === 'number' && Number.isFinite(x)) || typeof x === 'bigint';
}

/** A number, or per-step numbers summed left to right (as the grader source sums them). */
function amount(x: unknown): number | undefined {
  if (isNumber(x)) return Number(x);
  if (Array.isArray(x) && x.every(isNumber)) {
    let t = 0;
    for (const v of x) t += Number(v);
    return t;
  }
  return undefined;
}

function componentsOf(d: Record<string, unknown>, skip?: string): Record<string, number> | string {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(d)) {
    if (k === skip) continue;
    const a = amount(v);
    if (a === undefined) return `component ${JSON.stringify(k)} is ${preview(v)}, not a number or a list of numbers`;
    out[k] = a;
  }
  return out;
}

function preview(v: unknown): string {
  const t = JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? Number(x) : x)) ?? String(v);
  return t.length > 80 ? `${t.slice(0, 80)}…` : t;
}

const SHAPES = 'a number, a list of per-step numbers, a (total, {component: value}) pair or a dict with "total"';

function isDict(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Reads what reward() returned (its JSON value) as a total and its components, or why it cannot be. */
export function readReturn(v: unknown): Scored | string {
  if (typeof v === 'boolean' || v === null) return `reward() returned ${preview(v)}, not ${SHAPES}`;
  if (Array.isArray(v) && v.length === 2 && isNumber(v[0]) && isDict(v[1])) {
    const c = componentsOf(v[1]);
    return typeof c === 'string' ? c : { total: Number(v[0]), components: c };
  }
  if (isDict(v)) {
    if (!isNumber(v.total)) return `reward() returned a dict without a numeric "total" (${preview(v)}); want ${SHAPES}`;
    const c = componentsOf(v, 'total');
    return typeof c === 'string' ? c : { total: Number(v.total), components: c };
  }
  const a = amount(v);
  if (a === undefined) return `reward() returned ${preview(v)}, not ${SHAPES}`;
  if (!Number.isFinite(a)) return `reward() returned ${preview(v)}, whose total is not finite`;
  return { total: a };
}

export interface EvalSettings {
  pool: SandboxPool;
  /** Time limit of one reward() call, ms. */
  callMs: number;
  signal?: AbortSignal;
}

/** Runs reward() over every trajectory in one sandboxed run. */
export async function evaluateCandidate(code: string, trajectories: readonly unknown[], e: EvalSettings): Promise<Evaluation> {
  const per = e.callMs / 1000;
  const s: RunSettings = {
    pool: e.pool,
    language: 'python',
    // every call may use its whole limit; the run as a whole a little more
    limits: { wallMs: Math.ceil(e.callMs * trajectories.length + 10_000), cpuSeconds: Math.ceil(per * trajectories.length + 10) },
    compileLimits: {},
    perTestSeconds: per,
    pythonSite: true,
    compare: 'exact',
    tolerance: 0,
    usage: { runs: 0, runMs: 0, queueMs: 0 },
    ...(e.signal ? { signal: e.signal } : {}),
  };
  let rets: Awaited<ReturnType<typeof functionReturns>>;
  try {
    rets = await functionReturns(
      s,
      code,
      'reward',
      trajectories.map((t) => ({ args: [t] })),
    );
  } catch (err) {
    // a broken sandbox is arbiter's problem, not the candidate's: the run stops
    if (err instanceof GradeFailure) throw new Error(`the sandbox could not run the candidate: ${err.message}`);
    throw err;
  }
  const scores: Scored[] = [];
  const errors: string[] = [];
  rets.forEach((r, i) => {
    if (r.status !== 'ret') {
      errors.push(`trajectory ${i + 1}: ${r.status === 'timeout' ? 'timed out' : r.status.replace('_', ' ')}${r.detail ? `: ${r.detail}` : ''}`);
      return;
    }
    let v: unknown;
    try {
      v = parseJsonExact(r.json);
    } catch {
      errors.push(`trajectory ${i + 1}: unreadable return value`);
      return;
    }
    const got = readReturn(v);
    if (typeof got === 'string') errors.push(`trajectory ${i + 1}: ${got}`);
    else scores.push(got);
  });
  if (errors.length) {
    const first = errors[0]!.slice(0, 1500);
    return { ok: false, failedCalls: errors.length, error: `reward() failed on ${errors.length} of ${trajectories.length} trajectories; first: ${first}` };
  }
  return { ok: true, scores };
}

/**
 * The `python` grader source of a candidate: its code, then grade(sample, item) calling
 * reward(sample["trajectory"]) with printing (stdout and stderr) silenced and reducing the result to a total exactly
 * as readReturn does (per-step numbers summed left to right as floats).
 */
export function graderSource(code: string): string {
  return `${code.trimEnd()}


# ---- added by arbiter design: the python grader's entry point ----
def _arbiter_total(r):
    import numbers

    def num(x):
        return isinstance(x, numbers.Real) and not isinstance(x, bool)

    def amount(x):
        if num(x):
            return float(x)
        if isinstance(x, (list, tuple)) and all(num(v) for v in x):
            t = 0.0
            for v in x:
                t += float(v)
            return t
        raise TypeError('reward() returned %r, not a number, a list of per-step numbers, a (total, components) pair or a dict with a total' % (x,))

    if isinstance(r, (list, tuple)) and len(r) == 2 and num(r[0]) and isinstance(r[1], dict):
        return float(r[0])
    if isinstance(r, dict):
        if not num(r.get('total')):
            raise TypeError('reward() returned a dict without a numeric "total"')
        return float(r['total'])
    return amount(r)


def grade(sample, item):
    import contextlib
    import os

    with open(os.devnull, 'w') as _null, contextlib.redirect_stdout(_null), contextlib.redirect_stderr(_null):
        r = reward(sample['trajectory'])
    return _arbiter_total(r)
`;
}
