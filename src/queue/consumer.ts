// The worker side of the queue (`arbiter worker`): one BullMQ Worker per loaded grader's queue,
// grading each job's batch with graders built once and one Services (sandbox pools, model clients,
// caches) kept warm across jobs. It only takes jobs it can grade: a grader needing the sandbox when
// the sandbox does not work here, or a model endpoint it cannot reach, is not served (and the
// heartbeat says why). Each job is graded under its request deadline; a job whose lock this worker
// lost (Redis cut, stall) is aborted, since another worker has it. Closing finishes active jobs first.
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { availableParallelism } from 'node:os';
import { randomBytes } from 'node:crypto';
import { UnrecoverableError, Worker, type Job, type RedisOptions as BullRedisOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Grader, GraderContext } from '../core/grader.js';
import { GradeFailure, invalidResult } from '../core/result.js';
import type { Services } from '../core/services.js';
import { groupContext } from '../graders/composite/group-stage.js';
import { sandboxPool } from '../graders/code/config.js';
import {
  checkJobData,
  DEFAULT_DEADLINE_MS,
  DEFAULT_LOCK_MS,
  DEFAULT_PREFIX,
  DEFAULT_STALLED_MS,
  fingerprint,
  jobInputs,
  PROTOCOL,
  queueName,
  recoveryDoesNotFit,
  storedResults,
  workerKey,
  type JobData,
  type JobResult,
  type WorkerRecord,
} from './protocol.js';
import { checkRedis, parseRedisUrl, redisClient, redisOptions } from './redis.js';

/** One line of the worker's event log (`arbiter worker --events`). */
export interface WorkerEvent {
  event: 'ready' | 'active' | 'completed' | 'failed' | 'stalled' | 'lock_lost' | 'error' | 'refused' | 'serving' | 'closing' | 'closed';
  worker: string;
  queue?: string;
  grader?: string;
  job?: string;
  samples?: number;
  message?: string;
}

export interface QueueWorkerOptions {
  url: string;
  /** Key prefix shared with the servers (default "arbiter"). */
  prefix?: string;
  /** Graders to serve, by name (names are for logs; the queue is the grader's fingerprint). */
  graders: ReadonlyMap<string, Grader>;
  services: Services;
  /** Jobs graded at once per grader queue (default 2 × cores). */
  jobs?: number;
  /**
   * BullMQ lock duration, ms (default 5000): a worker silent this long loses its jobs to others.
   * The lock is renewed every quarter of it, so an event loop may pause for three quarters.
   */
  lockMs?: number;
  /** BullMQ stalled-job check interval, ms (default 3000). */
  stalledMs?: number;
  /**
   * The shortest request deadline of the servers this worker serves, ms (default 30 000, serve's):
   * settings whose recovery from a dead worker cannot fit in it are refused (recoveryDoesNotFit).
   */
  deadlineMs?: number;
  /** Times a job may be abandoned by dying workers before it fails (default 2). */
  maxStalled?: number;
  /** Heartbeat interval, ms (default 2000; the record expires after 5 intervals). */
  heartbeatMs?: number;
  /** Prefix of this worker's id (default the host name). */
  name?: string;
  /** Check that model endpoints answer a TCP connect before serving their graders (default true). */
  probeEndpoints?: boolean;
  onEvent?: (e: WorkerEvent) => void;
}

export interface QueueWorker {
  readonly id: string;
  /** Graders being served (name → queue). */
  readonly serving: ReadonlyMap<string, string>;
  /** Graders not served, and why. */
  readonly refused: ReadonlyMap<string, string>;
  /** Stops taking jobs, finishes the active ones, removes the heartbeat. */
  close(): Promise<void>;
}

/** Whether a TCP connection to the URL's host and port opens within `ms`. */
function reachable(url: string, ms: number): Promise<string | undefined> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return Promise.resolve(`"${url}" is not a URL`);
  }
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const s = connect({ host, port });
    const t = setTimeout(() => {
      s.destroy();
      resolve(`${u.host} did not accept a connection within ${ms} ms`);
    }, ms);
    s.once('connect', () => {
      clearTimeout(t);
      s.end();
      resolve(undefined);
    });
    s.once('error', (e) => {
      clearTimeout(t);
      resolve(`${u.host}: ${e.message}`);
    });
  });
}

/** Why this machine cannot grade with `g`, or undefined. */
async function cannotRun(g: Grader, services: Services, probe: boolean): Promise<string | undefined> {
  if (g.capabilities.some((c) => c.capability === 'sandboxed_code')) {
    const bad = await sandboxPool({ services } as GraderContext).unavailable();
    if (bad) return `it runs code and the sandbox does not work here: ${bad}`;
  }
  if (probe) {
    for (const c of g.capabilities) {
      if (c.capability !== 'network' || !c.url) continue;
      const bad = await reachable(c.url, 3000);
      if (bad) return `its model endpoint ${c.url} is unreachable from here (${bad})`;
    }
  }
  return undefined;
}

export async function startQueueWorker(opts: QueueWorkerOptions): Promise<QueueWorker> {
  const target = parseRedisUrl(opts.url);
  const lockDuration = opts.lockMs ?? DEFAULT_LOCK_MS;
  const stalledInterval = opts.stalledMs ?? DEFAULT_STALLED_MS;
  const unfit = recoveryDoesNotFit(lockDuration, stalledInterval, opts.deadlineMs ?? DEFAULT_DEADLINE_MS);
  if (unfit) throw new RangeError(unfit);
  await checkRedis(target);
  const prefix = opts.prefix ?? DEFAULT_PREFIX;
  const id = `${(opts.name ?? hostname()).replace(/[^A-Za-z0-9_.-]/g, '_')}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const emit = (e: Omit<WorkerEvent, 'worker'>) => opts.onEvent?.({ ...e, worker: id } as WorkerEvent);
  const concurrency = Math.max(1, Math.floor(opts.jobs ?? 2 * availableParallelism()));
  const maxStalledCount = opts.maxStalled ?? 2;
  const heartbeatMs = opts.heartbeatMs ?? 2000;

  // one queue per distinct grader (two names for one config share it)
  const byQueue = new Map<string, { name: string; grader: Grader; fp: string }>();
  for (const [name, grader] of opts.graders) {
    const fp = fingerprint(grader);
    const q = queueName(fp);
    if (!byQueue.has(q)) byQueue.set(q, { name, grader, fp });
  }
  const serving = new Map<string, string>();
  const refused = new Map<string, string>();
  const probe = opts.probeEndpoints ?? true;
  let sandbox = 'ok';
  if ([...byQueue.values()].some((x) => x.grader.capabilities.some((c) => c.capability === 'sandboxed_code'))) {
    sandbox = (await sandboxPool({ services: opts.services } as GraderContext).unavailable()) ?? 'ok';
  }

  const stats = { active: 0, completed: 0, samples: 0 };
  /** Abort controllers of the jobs being graded, by job id. */
  const running = new Map<string, AbortController>();
  const workers: Worker[] = [];
  const conn: Redis = redisClient(target, { blocking: false, name: `arbiter:worker:${id}`, onError: () => {} });
  let closing = false;

  const processor =
    (q: string, entry: { name: string; grader: Grader; fp: string }) =>
    async (job: Job): Promise<JobResult> => {
      const bad = checkJobData(job.data, entry.fp);
      if (bad) throw new UnrecoverableError(`job ${job.id}: ${bad}`);
      const d = job.data as JobData;
      const inputs = jobInputs(d);
      const g = entry.grader;
      const jid = String(job.id);
      emit({ event: 'active', queue: q, grader: entry.name, job: jid, samples: inputs.length });
      const left = d.deadline_at - Date.now();
      if (left <= 0) {
        const r = invalidResult('timeout', 'the request deadline passed before a worker took this job', { grader: g.name, type: g.type });
        return { v: PROTOCOL, worker: id, results: inputs.map(() => ({ ...r, metadata: { ...r.metadata } })) };
      }
      const ac = new AbortController();
      running.set(jid, ac);
      const timer = setTimeout(() => ac.abort(new GradeFailure('timeout', 'the request deadline passed while this sample was being graded')), left);
      stats.active++;
      try {
        let ctx: GraderContext = { services: opts.services, signal: ac.signal };
        if (d.group) ctx = groupContext(ctx);
        const results = await Promise.all(inputs.map((input) => g.grade(input, ctx)));
        stats.samples += results.length;
        return { v: PROTOCOL, worker: id, ...storedResults(results) };
      } finally {
        clearTimeout(timer);
        running.delete(jid);
        stats.active--;
      }
    };

  const attach = (q: string, entry: { name: string; grader: Grader; fp: string }) => {
    const w = new Worker(q, processor(q, entry), {
      connection: redisOptions(target, { blocking: true, name: `arbiter:worker:${id}` }) as BullRedisOptions,
      prefix,
      concurrency,
      lockDuration,
      // renewed every quarter of the lock: a pause of up to three quarters of it keeps the job
      lockRenewTime: Math.max(1, Math.floor(lockDuration / 4)),
      stalledInterval,
      maxStalledCount,
      name: id,
      autorun: true,
    });
    w.on('completed', (job: Job) => {
      stats.completed++;
      emit({ event: 'completed', queue: q, grader: entry.name, job: String(job.id) });
    });
    w.on('failed', (job: Job | undefined, err: Error) =>
      emit({ event: 'failed', queue: q, grader: entry.name, job: job ? String(job.id) : undefined, message: err.message }),
    );
    w.on('stalled', (jobId: string) => emit({ event: 'stalled', queue: q, job: jobId }));
    w.on('lockRenewalFailed', (ids: string[]) => {
      for (const jid of ids) {
        running
          .get(jid)
          ?.abort(new GradeFailure('timeout', 'this worker lost its lock on the job (Redis unreachable or the worker too slow); another worker grades it'));
        emit({ event: 'lock_lost', queue: q, job: jid });
      }
    });
    w.on('error', (e: Error) => emit({ event: 'error', queue: q, message: e.message }));
    workers.push(w);
    serving.set(entry.name, q);
    emit({ event: 'serving', queue: q, grader: entry.name });
  };

  const retryTimers: NodeJS.Timeout[] = [];
  const tryAttach = async (q: string, entry: { name: string; grader: Grader; fp: string }) => {
    if (closing) return;
    const why = await cannotRun(entry.grader, opts.services, probe);
    if (closing) return;
    if (!why) {
      refused.delete(entry.name);
      attach(q, entry);
      return;
    }
    const first = !refused.has(entry.name);
    refused.set(entry.name, why);
    if (first) emit({ event: 'refused', queue: q, grader: entry.name, message: why });
    // a sandbox that does not work stays so; an endpoint may come up later
    if (why.startsWith('its model endpoint')) {
      const t = setTimeout(() => void tryAttach(q, entry), 10_000);
      t.unref();
      retryTimers.push(t);
    }
  };
  for (const [q, entry] of byQueue) await tryAttach(q, entry);

  const record = (): WorkerRecord => ({
    id,
    host: hostname(),
    pid: process.pid,
    started_at: Date.now(),
    jobs: concurrency,
    lock_ms: lockDuration,
    stalled_ms: stalledInterval,
    heartbeat_ms: heartbeatMs,
    graders: [...serving].map(([name, queue]) => ({ name, queue, capabilities: [...new Set(opts.graders.get(name)!.capabilities.map((c) => c.capability))] })),
    refused: [...refused].map(([name, reason]) => ({ name, queue: queueName(fingerprint(opts.graders.get(name)!)), reason })),
    sandbox,
    active: stats.active,
    completed: stats.completed,
    samples: stats.samples,
  });
  const started = Date.now();
  const beat = async () => {
    if (closing) return;
    try {
      await conn.set(workerKey(prefix, id), JSON.stringify({ ...record(), started_at: started }), 'PX', heartbeatMs * 5);
    } catch {
      // Redis unreachable: the record expires and servers stop counting this worker until it is back
    }
  };
  if (conn.status !== 'ready') await new Promise<void>((resolve) => conn.once('ready', () => resolve()));
  await beat();
  const hb = setInterval(() => void beat(), heartbeatMs);
  hb.unref();
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  emit({ event: 'ready', message: `serving ${serving.size} grader queue(s)` });

  let closed: Promise<void> | undefined;
  return {
    id,
    serving,
    refused,
    close() {
      closed ??= (async () => {
        closing = true;
        emit({ event: 'closing' });
        clearInterval(hb);
        for (const t of retryTimers) clearTimeout(t);
        await Promise.all(workers.map((w) => w.close().catch(() => {})));
        await conn.del(workerKey(prefix, id)).catch(() => {});
        await conn.quit().catch(() => conn.disconnect());
        emit({ event: 'closed' });
      })();
      return closed;
    },
  };
}
