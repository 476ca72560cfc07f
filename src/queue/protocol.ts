// What travels through Redis between `arbiter serve --queue` and `arbiter worker`: queue names
// derived from a grader's fingerprint (its canonical config plus the arbiter version, so a worker
// only ever takes jobs for exactly the grader it loaded), the job payload (a batch of samples),
// the job's return value (one result per sample, in order), and the checks each side applies to
// what it reads.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Grader } from '../core/grader.js';
import { parseJsonExact, stringifyExact } from '../core/json.js';
import { isErrorKind, type Result } from '../core/result.js';
import type { GradeInput } from '../core/sample.js';
import { canonicalJson } from '../models/request-key.js';

/** Version of the job and result shapes; both sides refuse any other. */
export const PROTOCOL = 1;

/** Default key prefix in Redis (BullMQ's `prefix`): keys are `arbiter:<queue>:…`. */
export const DEFAULT_PREFIX = 'arbiter';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * The grader's identity across machines: SHA-256 of its validated config (keys sorted) and the
 * arbiter version. Two processes agree on it only when they would grade alike.
 */
export function fingerprint(g: Grader): string {
  return createHash('sha256')
    .update(canonicalJson({ protocol: PROTOCOL, arbiter: VERSION, config: g.config }))
    .digest('hex');
}

/** The BullMQ queue of a grader: `g-` and the first 24 hex digits of its fingerprint. */
export function queueName(fp: string): string {
  return `g-${fp.slice(0, 24)}`;
}

/** One job: a batch of samples for one grader, with the deadline of the latest request in it. */
export interface JobData {
  v: number;
  /** The grader's name on the server (for messages only; the queue fixes the grader). */
  grader: string;
  fp: string;
  /** Graded as members of a group (POST /v1/groups): the server runs the group stage. */
  group: boolean;
  /** Epoch ms after which no request waits for these results. */
  deadline_at: number;
  inputs: GradeInput[];
  /**
   * The inputs as exact JSON text instead, when they hold integers past 2^53 (BigInt, which
   * BullMQ's JSON.stringify cannot write): `inputs` is then empty (jobInputs reads either).
   */
  inputs_exact?: string;
}

/** A job's return value. */
export interface JobResult {
  v: number;
  /** The worker that graded it. */
  worker: string;
  results: Result[];
  /** The results as exact JSON text instead, when they hold a BigInt (`results` is then empty). */
  results_exact?: string;
}

/** Whether a value holds a BigInt anywhere (iterative: values may be deep). */
function holdsBigInt(v: unknown): boolean {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'bigint') return true;
    if (x !== null && typeof x === 'object')
      for (const y of Array.isArray(x) ? x : Object.values(x)) if (typeof y === 'bigint' || (y !== null && typeof y === 'object')) stack.push(y);
  }
  return false;
}

/** The samples of a job as it is stored: as they are, or as exact JSON text when they hold a BigInt. */
export function storedInputs(inputs: GradeInput[]): Pick<JobData, 'inputs' | 'inputs_exact'> {
  return holdsBigInt(inputs) ? { inputs: [], inputs_exact: stringifyExact(inputs) } : { inputs };
}

/** The results of a job as they are returned: as they are, or as exact JSON text when they hold a BigInt. */
export function storedResults(results: Result[]): Pick<JobResult, 'results' | 'results_exact'> {
  return holdsBigInt(results) ? { results: [], results_exact: stringifyExact(results) } : { results };
}

/** A job's samples, from either form (checkJobData has accepted `d`). */
export function jobInputs(d: JobData): GradeInput[] {
  return typeof d.inputs_exact === 'string' ? (parseJsonExact(d.inputs_exact) as GradeInput[]) : d.inputs;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Why `d` is not a job this worker can run for the grader with fingerprint `fp`, or undefined. */
export function checkJobData(d: unknown, fp: string): string | undefined {
  if (!isObj(d)) return 'the job data is not an object';
  if (d.v !== PROTOCOL) return `the job has protocol version ${JSON.stringify(d.v)}, this worker speaks ${PROTOCOL} (run the same arbiter version everywhere)`;
  if (d.fp !== fp) return "the job is for another grader fingerprint than this queue's";
  if (typeof d.deadline_at !== 'number' || !Number.isFinite(d.deadline_at)) return 'the job has no deadline';
  if (typeof d.group !== 'boolean') return 'the job has no group flag';
  let inputs = d.inputs;
  if (typeof d.inputs_exact === 'string') {
    try {
      inputs = parseJsonExact(d.inputs_exact);
    } catch {
      return 'the job holds samples that are not JSON';
    }
  }
  if (!Array.isArray(inputs) || inputs.length === 0) return 'the job has no samples';
  for (let i = 0; i < inputs.length; i++) {
    const x: unknown = inputs[i];
    if (!isObj(x) || !isObj(x.item) || !isObj(x.sample)) return `sample ${i} of the job is not {item, sample}`;
  }
  return undefined;
}

/** Whether `r` has the shape of a core Result: a valid one has a finite score, an invalid one an error kind. */
function isResult(r: unknown): r is Result {
  if (!isObj(r) || typeof r.valid !== 'boolean' || !isObj(r.metadata)) return false;
  const m = r.metadata;
  if (typeof m.grader !== 'string' || typeof m.type !== 'string' || typeof m.duration_ms !== 'number') return false;
  if (r.valid) return typeof r.score === 'number' && Number.isFinite(r.score);
  return r.score === null && isObj(r.error) && isErrorKind(r.error.kind) && typeof r.error.message === 'string';
}

/**
 * The results in a job's return value, or why they cannot be used: anything but `n` well-formed
 * results is refused whole, so a garbled reply never becomes a valid reward.
 */
export function readJobResult(x: unknown, n: number): { ok: true; results: Result[]; worker: string } | { ok: false; message: string } {
  if (!isObj(x)) return { ok: false, message: 'the job returned no result object' };
  if (x.v !== PROTOCOL) return { ok: false, message: `the job's result has protocol version ${JSON.stringify(x.v)}, expected ${PROTOCOL}` };
  let rs = x.results;
  if (typeof x.results_exact === 'string') {
    try {
      rs = parseJsonExact(x.results_exact);
    } catch {
      return { ok: false, message: "the job's results are not JSON" };
    }
  }
  if (!Array.isArray(rs) || rs.length !== n) return { ok: false, message: `the job returned ${Array.isArray(rs) ? rs.length : 'no'} results for ${n} samples` };
  for (let i = 0; i < n; i++) if (!isResult(rs[i])) return { ok: false, message: `result ${i} of the job is not a well-formed result` };
  return { ok: true, results: rs as Result[], worker: typeof x.worker === 'string' ? x.worker : '?' };
}

/** Worker defaults: lock, stalled-check interval, and the request deadline they are checked against. */
export const DEFAULT_LOCK_MS = 5000;
export const DEFAULT_STALLED_MS = 3000;
export const DEFAULT_DEADLINE_MS = 30_000;

/**
 * Longest time from a worker's death to its job being back in the queue. BullMQ moves an active job
 * back only at a stalled check that finds it in the `stalled` set (put there by the previous check)
 * with its lock expired: the lock runs out at most `lockMs` after death, the first check after that
 * comes within `stalledMs`, and the job must have been seen by a check before, so the bound is
 * `stalledMs + max(lockMs, stalledMs)`.
 */
function recoveryBoundMs(lockMs: number, stalledMs: number): number {
  return stalledMs + Math.max(lockMs, stalledMs);
}

/**
 * Why these settings cannot recover a dead worker's job within a request deadline, or undefined.
 * The rule: the recovery bound must stay under half the deadline, so the other half is left for the
 * job's time in the queue before the crash and for grading it again (as long as the first try).
 */
export function recoveryDoesNotFit(lockMs: number, stalledMs: number, deadlineMs: number): string | undefined {
  const r = recoveryBoundMs(lockMs, stalledMs);
  if (2 * r < deadlineMs) return undefined;
  return (
    `--lock-ms ${lockMs} with --stalled-ms ${stalledMs} brings a dead worker's job back after up to ${r} ms ` +
    `(stalled-ms + max(lock-ms, stalled-ms)), which must be under half the request deadline (--deadline-ms ${deadlineMs}: under ${deadlineMs / 2} ms), ` +
    'or its samples time out instead of being graded again: lower --lock-ms/--stalled-ms or raise --deadline-ms'
  );
}

/** Redis key of a worker's heartbeat record. */
export function workerKey(prefix: string, id: string): string {
  return `${prefix}:workers:${id}`;
}

/** What a worker advertises (its heartbeat record, JSON, expiring unless renewed). */
export interface WorkerRecord {
  id: string;
  host: string;
  pid: number;
  started_at: number;
  /** Jobs it runs at once per queue. */
  jobs: number;
  /** Its lock duration and stalled-check interval, ms (older workers: absent). */
  lock_ms?: number;
  stalled_ms?: number;
  /** Its heartbeat interval, ms (older workers: absent). */
  heartbeat_ms?: number;
  /** The graders it takes jobs for. */
  graders: { name: string; queue: string; capabilities: string[] }[];
  /** Graders it loaded but does not serve, and why (no sandbox here, endpoint unreachable). */
  refused: { name: string; queue: string; reason: string }[];
  /** `ok`, or why code graders cannot run here. */
  sandbox: string;
  active: number;
  completed: number;
  samples: number;
}
