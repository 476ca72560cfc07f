// The server side of the queue: an Executor that batches the samples of each served grader into
// BullMQ jobs (one queue per grader fingerprint), waits for their results through QueueEvents, and
// hands each sample its own result in order. Nothing is lost and nothing counted twice: job ids are
// deterministic, so adding one again is a no-op; a job is settled once, by its first completion;
// a job Redis forgot (restart without persistence) is added again; a job no request waits for any
// more is removed. Queue depth (all servers' jobs) becomes 429 + Retry-After at admission. A grader
// that no live worker has served for a short grace fails at once (config_error), naming any worker
// that serves a grader of that name with another config.
import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Grader, GraderContext } from '../core/grader.js';
import { invalidResult, type Result } from '../core/result.js';
import type { GradeInput } from '../core/sample.js';
import { inGroupStage } from '../graders/composite/group-stage.js';
import { QueueFullError } from '../server/admission.js';
import type { Executor, ExecutorEnv, ExecutorFactory, ExecutorRequest } from '../server/grade-runner.js';
import {
  DEFAULT_PREFIX,
  fingerprint,
  PROTOCOL,
  queueName,
  readJobResult,
  recoveryDoesNotFit,
  storedInputs,
  workerKey,
  type JobData,
  type WorkerRecord,
} from './protocol.js';
import { parseRedisUrl, redisClient, type RedisTarget } from './redis.js';

export interface QueueExecutorOptions {
  /** `redis://[user:pass@]HOST:PORT[/DB]` (or `rediss://`). */
  url: string;
  /** Key prefix shared with the workers (default "arbiter"). */
  prefix?: string;
  /** Samples per job, fixed. Default: sized per grader so a job holds about `targetJobMs` of grading. */
  batch?: number;
  /** Most samples per job when sized by cost (default 512). */
  maxJobSamples?: number;
  /** Grading time a job should hold when sized by cost, in ms (default 50). */
  targetJobMs?: number;
  /** Samples waiting in Redis (every server's) beyond which requests get 429 (default 16384, or the server's maxBatch if larger). */
  maxDepth?: number;
  /** How often queue depths and the worker list are read, ms (default 500). */
  pollMs?: number;
  /** An unfinished job not heard of for this long (at most a quarter of the deadline) is looked up in Redis, ms (default 5000); after a reconnect every job is. */
  reconcileMs?: number;
}

/** Per-sample cost guesses (ms) before a grader's first results say better. */
function initialCostMs(g: Grader): number {
  const caps = new Set(g.capabilities.map((c) => c.capability));
  if (caps.has('sandboxed_code') || caps.has('unsafe')) return 50;
  if (caps.has('network')) return 20;
  return 0.02;
}

interface Handle {
  name: string;
  queue: Queue;
  /** Set once the stream position is known (see init). */
  events?: QueueEvents;
  eventsConn: Redis;
  /** Jobs per state in Redis at the last poll (every server's). */
  counts: Record<string, number>;
  /** This server's waiting jobs at the last poll. */
  ownWaitingAtPoll: number;
  /** This server's waiting jobs now. */
  ownWaiting: number;
}

interface Route {
  name: string;
  grader: Grader;
  fp: string;
  handle: Handle;
  /** Estimated grading time per sample, ms (moving average of returned durations). */
  costMs: number;
  /** Samples handed over in this tick, by group flag, not yet in a job. */
  open: [Member[], Member[]];
}

interface Member {
  input: GradeInput;
  req: ExecutorRequest;
  resolve: (r: Result) => void;
  gone: boolean;
  job?: Job;
}

type JobState = 'adding' | 'waiting' | 'active' | 'done';

interface Job {
  id: string;
  route: Route;
  group: boolean;
  members: Member[];
  deadlineAt: number;
  state: JobState;
  t0: number;
  /** Last time anything was heard of it (event, add, lookup). */
  touched: number;
  gone: number;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

class QueueExecutor implements Executor {
  private readonly target: RedisTarget;
  private readonly prefix: string;
  private readonly sid = `s${randomBytes(5).toString('hex')}`;
  private seq = 0;
  private readonly conn: Redis;
  private readonly handles = new Map<string, Handle>();
  private readonly routes = new Map<Grader, Route>();
  private readonly pending = new Map<string, Job>();
  private readonly dirty = new Set<Route>();
  private flushScheduled = false;
  private waitingSamples = 0;
  private othersSamples = 0;
  private meanJobSamples = 1;
  private redisDown?: { since: number; message: string };
  private everReady = false;
  private workers: WorkerRecord[] = [];
  /** When each route was first seen with no live worker (Redis up); cleared when one appears. */
  private readonly unservedSince = new Map<Route, number>();
  /** Longest heartbeat interval any worker advertised (none seen yet: undefined, the worker default 2000 ms counts). */
  private heartbeatMs?: number;
  private readonly deadlineMs: number;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Resolves when every queue's event stream is being read (jobs are added only after). */
  private readonly ready: Promise<void>;
  private closed = false;
  private rate = 0;
  private rateT = performance.now();
  private rateN = 0;
  private completedSamples = 0;
  private readonly m: {
    jobs: Counter<'grader' | 'outcome'>;
    latency: Histogram<'grader'>;
    retries: Counter<'reason'>;
  };

  constructor(
    private readonly opts: QueueExecutorOptions,
    env: ExecutorEnv,
  ) {
    this.target = parseRedisUrl(opts.url);
    this.deadlineMs = env.deadlineMs;
    this.prefix = opts.prefix ?? DEFAULT_PREFIX;
    if (!/^[A-Za-z0-9_.-]+$/.test(this.prefix)) throw new RangeError(`queue prefix "${this.prefix}" may only have letters, digits, "_", "." and "-"`);
    for (const [k, v] of [
      ['batch', opts.batch],
      ['maxJobSamples', opts.maxJobSamples],
      ['maxDepth', opts.maxDepth],
      ['pollMs', opts.pollMs],
      ['reconcileMs', opts.reconcileMs],
      ['targetJobMs', opts.targetJobMs],
    ] as const) {
      if (v !== undefined && (!Number.isFinite(v) || v <= 0)) throw new RangeError(`queue option ${k} must be a positive number, got ${v}`);
    }
    this.maxDepth = Math.floor(opts.maxDepth ?? Math.max(16384, env.maxBatch));
    if (this.maxDepth < env.maxBatch)
      throw new RangeError(
        `the queue's max depth (${this.maxDepth} samples) must be at least the largest batch a request may carry (${env.maxBatch}), or such a request could never be admitted`,
      );
    this.conn = redisClient(this.target, { blocking: false, name: `arbiter:serve:${this.sid}`, onError: (e) => this.down(e) });
    this.conn.on('ready', () => {
      this.up();
      void this.poll();
    });
    this.conn.on('close', () => this.down(new Error('connection closed')));
    for (const [name, grader] of env.graders) {
      const fp = fingerprint(grader);
      const qn = queueName(fp);
      const handle = this.handles.get(qn) ?? this.handle(qn);
      this.routes.set(grader, { name, grader, fp, handle, costMs: initialCostMs(grader), open: [[], []] });
    }
    const registers = [env.registry];
    this.m = {
      jobs: new Counter({
        name: 'arbiter_redis_jobs_total',
        help: 'queue jobs of this server by grader and outcome (completed, failed, malformed, unserved: no live worker served its grader, abandoned: no request waited any more)',
        labelNames: ['grader', 'outcome'],
        registers,
      }),
      latency: new Histogram({
        name: 'arbiter_redis_job_duration_seconds',
        help: 'time from adding a job to its result (queueing + grading + transfer)',
        labelNames: ['grader'],
        buckets: LATENCY_BUCKETS,
        registers,
      }),
      retries: new Counter({
        name: 'arbiter_redis_retries_total',
        help: 'jobs run again: stalled (a worker died or lost Redis mid-job) or lost (Redis forgot the job; added again)',
        labelNames: ['reason'],
        registers,
      }),
    };
    const self = this;
    new Gauge({
      name: 'arbiter_redis_queue_jobs',
      help: 'jobs in Redis by grader queue and state (all servers), at the last poll',
      labelNames: ['queue', 'state'],
      registers,
      collect() {
        this.reset();
        for (const h of self.handles.values()) for (const [s, n] of Object.entries(h.counts)) this.labels(h.name, s).set(n);
      },
    });
    new Gauge({
      name: 'arbiter_redis_waiting_samples',
      help: "samples waiting in Redis for a worker (this server's exactly, other servers' estimated)",
      registers,
      collect() {
        this.set(self.depth());
      },
    });
    new Gauge({
      name: 'arbiter_redis_jobs_pending',
      help: 'jobs of this server not finished yet',
      registers,
      collect() {
        this.set(self.pending.size);
      },
    });
    new Gauge({
      name: 'arbiter_redis_workers',
      help: 'live workers (heartbeat within its TTL) serving each grader',
      labelNames: ['grader'],
      registers,
      collect() {
        this.reset();
        for (const r of self.routes.values()) this.labels(r.name).set(self.liveWorkers(r));
      },
    });
    new Gauge({
      name: 'arbiter_redis_workers_total',
      help: 'live workers seen in Redis',
      registers,
      collect() {
        this.set(self.workers.length);
      },
    });
    new Gauge({
      name: 'arbiter_redis_up',
      help: '1 when this server can reach Redis',
      registers,
      collect() {
        this.set(self.redisDown ? 0 : 1);
      },
    });
    this.ready = this.init();
    const poll = setInterval(() => void this.poll(), opts.pollMs ?? 500);
    // a job not heard of for a quarter of the deadline (at most reconcileMs) is looked up
    this.quietMs = Math.max(50, Math.min(opts.reconcileMs ?? 5000, env.deadlineMs / 4));
    const sweep = setInterval(() => void this.reconcile(false), Math.max(25, this.quietMs / 2));
    poll.unref();
    sweep.unref();
    this.timers.push(poll, sweep);
  }

  private readonly maxDepth: number;
  private readonly quietMs: number;

  private handle(name: string): Handle {
    // the event stream carries every job's results: keep it to about 500 jobs' worth (a server
    // that fell further behind looks its jobs up instead)
    const queue = new Queue(name, { connection: this.conn, prefix: this.prefix, streams: { events: { maxLen: 2000 } } });
    queue.on('error', (e: Error) => this.down(e));
    const eventsConn = redisClient(this.target, { blocking: true, name: `arbiter:serve-events:${this.sid}`, onError: (e) => this.down(e) });
    let first = true;
    eventsConn.on('ready', () => {
      // the stream is read on from the last event seen; anything lost meanwhile is looked up
      if (!first) void this.reconcile(true);
      first = false;
    });
    const h: Handle = { name, queue, eventsConn, counts: {}, ownWaitingAtPoll: 0, ownWaiting: 0 };
    this.handles.set(name, h);
    return h;
  }

  /**
   * Starts reading each queue's event stream from Redis's clock now, before any job is added: a
   * stream read from "$" would miss the events of jobs finished before its first read.
   */
  private async init(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      try {
        const [sec, usec] = await this.conn.time();
        const from = `${Number(sec) * 1000 + Math.floor(Number(usec) / 1000) - 1}-0`;
        for (const h of this.handles.values()) if (!h.events) this.listen(h, from);
        return;
      } catch (e) {
        this.down(e as Error);
        await new Promise((r) => setTimeout(r, 100).unref());
      }
    }
  }

  private listen(h: Handle, from: string): void {
    const events = new QueueEvents(h.name, { connection: h.eventsConn, prefix: this.prefix, blockingTimeout: 5000, lastEventId: from });
    h.events = events;
    events.on('error', (e: Error) => this.down(e));
    events.on('active', ({ jobId }: { jobId: string }) => {
      const j = this.pending.get(jobId);
      if (j) this.setState(j, 'active');
    });
    events.on('stalled', ({ jobId }: { jobId: string }) => {
      const j = this.pending.get(jobId);
      if (!j) return;
      this.m.retries.labels('stalled').inc();
      this.setState(j, 'waiting');
    });
    events.on('completed', ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) => {
      const j = this.pending.get(jobId);
      if (j) this.complete(j, returnvalue);
    });
    events.on('failed', ({ jobId, failedReason }: { jobId: string; failedReason: string }) => {
      const j = this.pending.get(jobId);
      if (!j) return;
      const why = /stalled more than allowable limit/.test(failedReason)
        ? `${failedReason}: workers died or lost Redis while grading it more than --max-stalled times`
        : failedReason;
      this.fail(j, `job ${jobId} failed in the queue: ${why}`, 'failed');
    });
  }

  private up(): void {
    const wasDown = this.redisDown !== undefined || !this.everReady;
    this.redisDown = undefined;
    if (wasDown && this.everReady) this.reconcile(true);
    this.everReady = true;
  }

  private down(e: Error): void {
    if (this.closed) return;
    if (!this.redisDown) this.redisDown = { since: Date.now(), message: e.message };
    else this.redisDown.message = e.message;
  }

  // ---- Executor ----

  grade(g: Grader, input: GradeInput, ctx: GraderContext, req: ExecutorRequest): Promise<Result> {
    const route = this.routes.get(g);
    if (!route || this.closed) return g.grade(input, ctx); // inline graders are graded here
    const unserved = this.unserved(route);
    if (unserved) return Promise.resolve(invalidResult('config_error', unserved, { grader: g.name, type: g.type }));
    return new Promise<Result>((resolve) => {
      const m: Member = { input, req, resolve, gone: false };
      route.open[inGroupStage(ctx) ? 1 : 0].push(m);
      this.dirty.add(route);
      this.waitingSamples++;
      req.onAbort(() => this.leave(m));
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  admit(n: number): void {
    const depth = this.depth();
    if (depth + n <= this.maxDepth) return;
    const rate = Math.max(this.rate, 1);
    const retry = Math.min(60, Math.max(1, Math.ceil((depth + n - this.maxDepth) / rate)));
    throw new QueueFullError(
      `the grading queue is full: about ${depth} samples are waiting in Redis for workers (queue limit ${this.maxDepth}); retry later`,
      retry,
    );
  }

  timeoutDetail(g: Grader): string | undefined {
    const r = this.routes.get(g);
    if (!r) return undefined;
    if (this.redisDown)
      return `Redis at ${this.target.display} unreachable for ${((Date.now() - this.redisDown.since) / 1000).toFixed(1)} s: ${this.redisDown.message}`;
    const w = this.liveWorkers(r);
    if (w === 0)
      return `no live worker serves grader "${r.name}" (queue ${r.handle.name}); start one with: arbiter worker --queue ${this.target.display} --grader <its file>`;
    const c = r.handle.counts;
    return `queue ${r.handle.name}: ${w} live worker${w === 1 ? '' : 's'}, ${c.waiting ?? 0} jobs waiting and ${c.active ?? 0} active at the last look`;
  }

  health(): Record<string, unknown> {
    const graders: Record<string, unknown> = {};
    for (const r of this.routes.values()) {
      graders[r.name] = {
        queue: r.handle.name,
        workers: this.liveWorkers(r),
        waiting_jobs: r.handle.counts.waiting ?? 0,
        active_jobs: r.handle.counts.active ?? 0,
        batch: this.batchSize(r),
        unserved: this.unserved(r) !== undefined,
      };
    }
    return {
      kind: 'redis_queue',
      redis: this.target.display,
      redis_ok: !this.redisDown,
      ...(this.redisDown ? { redis_error: this.redisDown.message } : {}),
      workers: this.workers.length,
      // live workers whose recovery from a dead worker (lock + stalled check) cannot fit this server's deadline
      slow_recovery_workers: this.workers
        .filter((w) => typeof w.lock_ms === 'number' && typeof w.stalled_ms === 'number' && recoveryDoesNotFit(w.lock_ms, w.stalled_ms, this.deadlineMs))
        .map((w) => w.id),
      waiting_samples: this.depth(),
      pending_jobs: this.pending.size,
      graders,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.flush();
    for (const j of [...this.pending.values()]) this.fail(j, 'the server closed before the job finished', 'abandoned');
    for (const h of this.handles.values()) {
      await h.events?.close().catch(() => {});
      await h.queue.close().catch(() => {});
      h.eventsConn.disconnect();
    }
    await this.conn.quit().catch(() => this.conn.disconnect());
  }

  // ---- jobs ----

  private batchSize(r: Route): number {
    if (this.opts.batch) return Math.floor(this.opts.batch);
    const max = Math.floor(this.opts.maxJobSamples ?? 512);
    return Math.max(1, Math.min(max, Math.floor((this.opts.targetJobMs ?? 50) / Math.max(r.costMs, 1e-6))));
  }

  private depth(): number {
    return this.waitingSamples + this.othersSamples;
  }

  /**
   * Why no request should wait for grader `r`, or undefined: with Redis up, no live worker has served
   * it for the grace of unservedGraceMs (a Redis restart forgets every heartbeat record; workers
   * write theirs again within a reconnect and a heartbeat).
   */
  private unserved(r: Route): string | undefined {
    const since = this.unservedSince.get(r);
    if (since === undefined || this.redisDown || Date.now() - since < this.unservedGraceMs()) return undefined;
    let m = `no live worker serves grader "${r.name}" (queue ${r.handle.name})`;
    const other = this.workers.filter((w) => w.graders.some((g) => g.name === r.name && g.queue !== r.handle.name));
    if (other.length) {
      const w = other[0]!;
      const q = w.graders.find((g) => g.name === r.name)!.queue;
      m +=
        `; worker ${w.id}${other.length > 1 ? ` (and ${other.length - 1} more)` : ''} serves a grader named "${r.name}" with a different config ` +
        `(queue ${q}): load the same grader file with the same arbiter version on the workers`;
    } else {
      const refusing = this.workers.find((w) => Array.isArray(w.refused) && w.refused.some((x) => x.queue === r.handle.name));
      if (refusing) m += `; worker ${refusing.id} loaded it but does not serve it: ${refusing.refused.find((x) => x.queue === r.handle.name)!.reason}`;
      else m += `; start one with: arbiter worker --queue ${this.target.display} --grader <its file>`;
    }
    return m;
  }

  /**
   * Two heartbeat intervals (the longest advertised; 2000 ms before any worker was seen) plus 1.5 s
   * for a reconnect (ioredis backs off at most 1 s) and a poll: 5.5 s with the defaults.
   */
  private unservedGraceMs(): number {
    return 2 * (this.heartbeatMs ?? 2000) + 1500;
  }

  /** After a poll: tracks which routes have no live worker, and fails their waiting jobs once unserved. */
  private checkServed(): void {
    const now = Date.now();
    for (const r of this.routes.values()) {
      if (this.liveWorkers(r) > 0) this.unservedSince.delete(r);
      else if (!this.unservedSince.has(r)) this.unservedSince.set(r, now);
    }
    for (const j of [...this.pending.values()]) {
      if (j.state !== 'waiting') continue;
      const why = this.unserved(j.route);
      if (!why) continue;
      this.fail(j, why, 'unserved', 'config_error');
      void j.route.handle.queue.remove(j.id).catch(() => {});
    }
  }

  private liveWorkers(r: Route): number {
    let n = 0;
    for (const w of this.workers) if (w.graders.some((g) => g.queue === r.handle.name)) n++;
    return n;
  }

  private flush(): void {
    this.flushScheduled = false;
    const now = Date.now();
    const byHandle = new Map<Handle, Job[]>();
    for (const r of this.dirty) {
      const size = this.batchSize(r);
      for (const group of [0, 1] as const) {
        const ms = r.open[group].filter((m) => !m.gone);
        r.open[group] = [];
        for (let i = 0; i < ms.length; i += size) {
          const members = ms.slice(i, i + size);
          let deadlineAt = 0;
          for (const m of members) deadlineAt = Math.max(deadlineAt, m.req.deadlineAt);
          const j: Job = {
            id: `${this.sid}-${++this.seq}`,
            route: r,
            group: group === 1,
            members,
            deadlineAt,
            state: 'adding',
            t0: performance.now(),
            touched: now,
            gone: 0,
          };
          for (const m of members) m.job = j;
          this.pending.set(j.id, j);
          r.handle.ownWaiting++;
          const list = byHandle.get(r.handle) ?? [];
          byHandle.set(r.handle, list);
          list.push(j);
        }
      }
    }
    this.dirty.clear();
    for (const [h, jobs] of byHandle) void this.add(h, jobs);
  }

  private jobData(j: Job): JobData {
    return { v: PROTOCOL, grader: j.route.name, fp: j.route.fp, group: j.group, deadline_at: j.deadlineAt, ...storedInputs(j.members.map((m) => m.input)) };
  }

  /** Adds jobs, retrying while Redis is unreachable until no request waits for them. */
  private async add(h: Handle, jobs: Job[]): Promise<void> {
    await this.ready;
    let delay = 50;
    for (;;) {
      const live = jobs.filter((j) => j.state !== 'done');
      if (live.length === 0 || this.closed) return;
      try {
        await h.queue.addBulk(
          live.map((j) => ({
            name: 'grade',
            data: this.jobData(j),
            // results stay a while (a server that missed the event looks them up), failures longer (diagnosis)
            opts: { jobId: j.id, attempts: 1, removeOnComplete: { age: 600, count: 200 }, removeOnFail: { age: 86_400, count: 1000 } },
          })),
        );
        const now = Date.now();
        for (const j of live) {
          if (j.state === 'adding') this.setState(j, 'waiting');
          j.touched = now;
        }
        return;
      } catch (e) {
        this.down(e as Error);
        await new Promise((r) => setTimeout(r, delay).unref());
        delay = Math.min(delay * 2, 1000);
      }
    }
  }

  private setState(j: Job, s: JobState): void {
    const was = j.state;
    if (was === 'done' || was === s) return;
    const waitingBefore = was === 'adding' || was === 'waiting';
    const waitingAfter = s === 'adding' || s === 'waiting';
    const n = j.members.length - j.gone;
    if (waitingBefore && !waitingAfter) {
      this.waitingSamples -= n;
      j.route.handle.ownWaiting--;
    } else if (!waitingBefore && waitingAfter) {
      this.waitingSamples += n;
      j.route.handle.ownWaiting++;
    }
    j.state = s;
    j.touched = Date.now();
  }

  /** A member's request gave up (deadline, client gone); a job no one waits for is removed. */
  private leave(m: Member): void {
    if (m.gone) return;
    m.gone = true;
    m.resolve(invalidResult('timeout', 'the request was aborted before this sample was graded', { grader: '', type: '' }));
    const j = m.job;
    if (!j) {
      this.waitingSamples--;
      return;
    }
    if (j.state === 'done') return;
    j.gone++;
    if (j.state === 'adding' || j.state === 'waiting') this.waitingSamples--;
    if (j.gone < j.members.length) return;
    this.m.jobs.labels(j.route.name, 'abandoned').inc();
    const wasWaiting = j.state === 'adding' || j.state === 'waiting';
    this.finish(j);
    // a waiting job is removed so no worker spends time on it; an active one (locked) finishes on its own
    if (wasWaiting) void j.route.handle.queue.remove(j.id).catch(() => {});
  }

  private finish(j: Job): void {
    if (j.state === 'done') return;
    const n = j.members.length - j.gone;
    if (j.state === 'adding' || j.state === 'waiting') {
      this.waitingSamples -= n;
      j.route.handle.ownWaiting--;
    }
    j.state = 'done';
    this.pending.delete(j.id);
  }

  private complete(j: Job, returnvalue: unknown): void {
    if (j.state === 'done') return;
    const r = readJobResult(returnvalue, j.members.length);
    if (!r.ok) {
      this.fail(j, `job ${j.id}: ${r.message}`, 'malformed');
      return;
    }
    this.finish(j);
    const route = j.route;
    this.m.jobs.labels(route.name, 'completed').inc();
    this.m.latency.labels(route.name).observe((performance.now() - j.t0) / 1000);
    let ms = 0;
    for (let i = 0; i < j.members.length; i++) {
      const res = r.results[i]!;
      ms += res.metadata.duration_ms;
      const m = j.members[i]!;
      if (!m.gone) m.resolve(res);
    }
    const per = ms / j.members.length;
    if (Number.isFinite(per) && per >= 0) route.costMs = 0.7 * route.costMs + 0.3 * per;
    this.meanJobSamples = 0.9 * this.meanJobSamples + 0.1 * j.members.length;
    this.tickRate(j.members.length);
  }

  private fail(j: Job, message: string, outcome: string, kind: 'internal_error' | 'config_error' = 'internal_error'): void {
    if (j.state === 'done') return;
    this.finish(j);
    this.m.jobs.labels(j.route.name, outcome).inc();
    const g = j.route.grader;
    for (const m of j.members) if (!m.gone) m.resolve(invalidResult(kind, message, { grader: g.name, type: g.type }));
  }

  private tickRate(n: number): void {
    this.completedSamples += n;
    const now = performance.now();
    const dt = now - this.rateT;
    if (dt < 1000) return;
    const r = ((this.completedSamples - this.rateN) * 1000) / dt;
    this.rate = this.rate === 0 ? r : 0.5 * this.rate + 0.5 * r;
    this.rateT = now;
    this.rateN = this.completedSamples;
  }

  // ---- background ----

  private polling = false;
  private async poll(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      let others = 0;
      for (const h of this.handles.values()) {
        const own = h.ownWaiting;
        const c = await h.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed');
        h.counts = c;
        h.ownWaitingAtPoll = own;
        others += Math.max(0, (c.waiting ?? 0) + (c.prioritized ?? 0) - own);
      }
      this.othersSamples = Math.round(others * this.meanJobSamples);
      this.workers = await this.readWorkers();
      for (const w of this.workers)
        if (typeof w.heartbeat_ms === 'number' && w.heartbeat_ms > (this.heartbeatMs ?? 0)) this.heartbeatMs = Math.min(w.heartbeat_ms, 60_000);
      if (this.redisDown) this.up();
      this.checkServed();
    } catch (e) {
      this.down(e as Error);
    } finally {
      this.polling = false;
    }
  }

  private async readWorkers(): Promise<WorkerRecord[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.conn.scan(cursor, 'MATCH', workerKey(this.prefix, '*'), 'COUNT', 200);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0' && keys.length < 10_000);
    if (keys.length === 0) return [];
    const vals = await this.conn.mget(keys);
    const out: WorkerRecord[] = [];
    for (const v of vals) {
      if (!v) continue;
      try {
        const w = JSON.parse(v) as WorkerRecord;
        if (w && Array.isArray(w.graders)) out.push(w);
      } catch {
        // a record that is not ours: ignored
      }
    }
    return out;
  }

  private reconciling = false;
  private reconcileAgain = false;
  /** Looks up unfinished jobs in Redis: takes results whose events were missed, re-adds forgotten jobs. */
  private async reconcile(all: boolean): Promise<void> {
    if (this.closed) return;
    if (this.reconciling) {
      if (all) this.reconcileAgain = true;
      return;
    }
    this.reconciling = true;
    try {
      do {
        const everything = all || this.reconcileAgain;
        this.reconcileAgain = false;
        const quiet = Date.now() - this.quietMs;
        const jobs = [...this.pending.values()].filter((j) => j.state !== 'adding' && (everything || j.touched < quiet));
        const lost = new Map<Handle, Job[]>();
        for (const j of jobs) {
          if (j.state === 'done') continue;
          const job = await j.route.handle.queue.getJob(j.id);
          if ((j.state as JobState) === 'done') continue;
          j.touched = Date.now();
          if (!job) {
            this.m.retries.labels('lost').inc();
            this.setState(j, 'adding');
            const l = lost.get(j.route.handle) ?? [];
            lost.set(j.route.handle, l);
            l.push(j);
          } else if (job.finishedOn) {
            if (job.failedReason) this.fail(j, `job ${j.id} failed in the queue: ${job.failedReason}`, 'failed');
            else this.complete(j, job.returnvalue);
          }
        }
        for (const [h, l] of lost) void this.add(h, l);
        all = false;
      } while (this.reconcileAgain && !this.closed);
    } catch (e) {
      this.down(e as Error);
    } finally {
      this.reconciling = false;
    }
  }
}

/**
 * The executor for `createServer({executor})` that grades served graders through Redis:
 * `createServer({graders, executor: queueExecutor({url: 'redis://127.0.0.1:6379'})})`.
 */
export function queueExecutor(opts: QueueExecutorOptions): ExecutorFactory {
  parseRedisUrl(opts.url);
  return (env) => new QueueExecutor(opts, env);
}
