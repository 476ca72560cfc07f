// The one-pass reward pipeline behind `arbiter score --group-by/--advantages/--monitor`: graded
// records arrive in input order; (1) they are grouped by a field and each group's stage (the root
// grader's group-level computation over all members' results) runs once the group is complete;
// (2) advantages are added, in input order, by the streaming advantage engine; (3) monitors run
// over each batch and every line of the batch gets the names of the monitors alerting on it.
// Output is in input order, one record per input record, and streams as groups complete when the
// group size is known (monitors hold their batch). Bad input is an invalid result naming its place:
// a line without the group field, a line past the group size, a group of one line for a grader
// whose score needs the group.
import type { Grader, GraderContext } from '../core/grader.js';
import type { Result } from '../core/result.js';
import type { OutputRecord } from '../io/score-stream.js';
import type { GradeInput } from '../core/sample.js';
import { describe } from '../core/sample.js';
import { Services } from '../core/services.js';
import { groupContext, groupStageOf } from '../graders/composite/group-stage.js';
import type { AdvantageConfig } from './config.js';
import { finishGroups, type GroupMember } from './group-grade.js';
import type { MonitorConfig } from './monitor-config.js';
import { compactPoint, computeMonitors, toPoint, type MonitorPoint, type MonitorReport } from './monitors.js';
import { key, type GroupKey } from './rows.js';
import { recordEngine, type AdvantageCounts, type AdvantageEngine } from './stream.js';

export interface PipelineOptions {
  /** The field naming each record's group (e.g. "uid"); undefined: no group stage. */
  groupBy?: string;
  /** Lines per group: a group is finished as soon as it has this many (so output streams). */
  groupSize?: number;
  advantages?: AdvantageConfig | null;
  monitors?: MonitorConfig | null;
}

/** A graded record travelling through the pipeline: the result plus its id and carried fields. */
export type PipelineRecord = OutputRecord & Record<string, unknown>;

/** What the pipeline did, for the run's summary. */
export interface PipelineSummary {
  group_by?: string;
  groups?: number;
  /** Groups closed with fewer than group_size lines (end of input). */
  short_groups?: number;
  advantages?: AdvantageCounts & { estimator: string };
  /** One entry per monitored batch. */
  monitors?: { batch: number; lines: number; alerts: string[]; reports: MonitorReport[] }[];
}

interface Entry {
  rec: PipelineRecord;
  input?: GradeInput;
  /** "line 7" / "samples[3]" for messages; `src` and `at` for the advantage engine. */
  src: string;
  at: number;
  key?: GroupKey;
  staged: boolean;
}

const ADV_KEYS = ['advantage', 'token_advantages', 'advantage_masked', 'advantage_mask_reason', 'advantage_error', 'filtered'] as const;
/** Result fields that are not carried into an advantage record as they are. */
const NOT_ADV = new Set(['error', 'reason', 'steps', 'metadata']);

const where = (e: Entry) => (e.src === 'line' ? `line ${e.at}` : `${e.src}[${e.at}]`);

function invalidate(e: Entry, message: string): void {
  const r = e.rec;
  r.score = null;
  r.valid = false;
  r.error = { kind: 'bad_input', message: `${where(e)}: ${message}` };
  delete r.components;
  delete r.metadata.group_stage;
}

export class RewardPipeline {
  private readonly grader: Grader;
  private readonly o: PipelineOptions;
  private readonly hasStage: boolean;
  // stage 1: groups
  private queue: Entry[] = [];
  private readonly open = new Map<GroupKey, Entry[]>();
  private readonly closed = new Set<GroupKey>();
  // stage 2: advantages
  private readonly engine?: AdvantageEngine<Record<string, unknown>>;
  private inEngine: Entry[] = [];
  // stage 3: monitors
  private batch: Entry[] = [];
  private batches = 0;
  private ready: PipelineRecord[] = [];
  readonly summary: PipelineSummary = {};
  /** The context members were graded with; the group stage runs with it (set by context()). */
  private ctx?: GraderContext;

  /** Members of a group are graded knowing that the group stage follows. */
  context(ctx: GraderContext): GraderContext {
    this.ctx = this.o.groupBy !== undefined ? groupContext(ctx) : ctx;
    return this.ctx;
  }

  /** Monitors read the samples, and a group stage may read its members' inputs. */
  get wantsInput(): boolean {
    return Boolean(this.o.monitors) || this.hasStage;
  }

  constructor(grader: Grader, opts: PipelineOptions) {
    this.grader = grader;
    this.o = opts;
    this.hasStage = Boolean(opts.groupBy && groupStageOf(grader.type));
    if (opts.groupBy) {
      this.summary.group_by = opts.groupBy;
      this.summary.groups = 0;
      this.summary.short_groups = 0;
    }
    const a = opts.advantages;
    if (a) {
      // the engine closes a group at the pipeline's group size too, so advantages stream with it
      const cfg = opts.groupSize !== undefined && a.scope === 'group' && a.groupSize === undefined ? { ...a, groupSize: opts.groupSize } : a;
      this.engine = recordEngine(cfg);
    }
    if (opts.monitors) this.summary.monitors = [];
  }

  /** Adds the next graded record (in input order); `src`/`at` name it in messages. */
  async push(rec: OutputRecord, src: string, at: number, input?: GradeInput): Promise<void> {
    const e: Entry = { rec: rec as PipelineRecord, src, at, staged: true };
    if (input) e.input = input;
    this.queue.push(e);
    const by = this.o.groupBy;
    if (by) await this.group(e, by);
    this.drain();
  }

  private async group(e: Entry, by: string): Promise<void> {
    const raw = e.rec[by];
    const k = key(raw);
    if (k === undefined) {
      // a line that is already invalid (not JSON, not a record) keeps the error that names why
      if (e.rec.valid === false && e.rec.error) return;
      invalidate(
        e,
        raw === undefined
          ? `field "${by}" (the group, --group-by ${by}) is missing: every line must name its group`
          : `field "${by}" (the group) must be a string or number, got ${describe(raw)}`,
      );
      return;
    }
    e.key = k;
    const size = this.o.groupSize;
    if (this.closed.has(k)) {
      invalidate(e, `its ${by} ${JSON.stringify(String(raw))} already had group_size=${size} lines (a group must not have more lines than the group size)`);
      return;
    }
    e.staged = false;
    let g = this.open.get(k);
    if (!g) this.open.set(k, (g = []));
    g.push(e);
    if (size !== undefined && g.length === size) {
      this.open.delete(k);
      this.closed.add(k);
      await this.finish(g, false);
    }
  }

  private async finish(g: Entry[], short: boolean): Promise<void> {
    this.summary.groups!++;
    if (short) this.summary.short_groups!++;
    if (this.hasStage) await this.stage(g);
    for (const e of g) e.staged = true;
  }

  /** Runs the root grader's group stage over a complete group (its members' inputs included). */
  private async stage(g: Entry[]): Promise<void> {
    const members: GroupMember[] = g.map((e) => ({ id: e.at, uid: e.key!, where: where(e), ...(e.input ? { input: e.input } : {}) }));
    const results: Result[] = g.map((e) => e.rec);
    await finishGroups(this.grader, members, results, (this.ctx ??= groupContext({ services: new Services() })));
    // a result finishGroups replaced (a group of one) is written in the record's place, id and carried fields kept
    g.forEach((e, i) => {
      const r = results[i]!;
      if (r === e.rec) return;
      delete e.rec.components;
      delete e.rec.reason;
      Object.assign(e.rec, r);
    });
  }

  /** Moves every staged record at the head of the queue on to the advantages. */
  private drain(): void {
    let h = 0;
    const q = this.queue;
    while (h < q.length && q[h]!.staged) this.toAdvantages(q[h++]!);
    if (h) this.queue = q.slice(h);
    this.fromAdvantages();
  }

  private toAdvantages(e: Entry): void {
    if (!this.engine) {
      this.toMonitors(e);
      return;
    }
    const r = e.rec;
    const a: Record<string, unknown> = {};
    for (const k in r) if (!NOT_ADV.has(k)) a[k] = r[k];
    if (this.o.groupBy && this.o.groupBy !== 'uid' && e.key !== undefined) a.uid = e.key;
    this.inEngine.push(e);
    this.engine.pushRecord(a, e.src, e.at);
  }

  private fromAdvantages(): void {
    if (!this.engine) return;
    const outs = this.engine.take();
    for (let i = 0; i < outs.length; i++) {
      const e = this.inEngine[i]!;
      const a = outs[i]!;
      for (const k of ADV_KEYS) if (a[k] !== undefined) e.rec[k] = a[k];
      this.toMonitors(e);
    }
    if (outs.length) this.inEngine = this.inEngine.slice(outs.length);
  }

  private toMonitors(e: Entry): void {
    const m = this.o.monitors;
    if (!m) {
      this.ready.push(e.rec);
      return;
    }
    this.batch.push(e);
    const size = m.batchSize ?? this.o.advantages?.batchSize;
    if (size !== undefined && this.batch.length === size) this.monitorBatch();
  }

  private monitorBatch(): void {
    const m = this.o.monitors!;
    const points: MonitorPoint[] = this.batch.map((e) => compactPoint(toPoint(e.rec, m.point, e.input?.sample, e.input?.item)));
    const reports = computeMonitors(points, m.options);
    const alerts = reports.filter((r) => r.alert).map((r) => r.monitor);
    this.summary.monitors!.push({ batch: this.batches++, lines: this.batch.length, alerts, reports });
    for (const e of this.batch) {
      e.rec.monitor_alerts = alerts;
      this.ready.push(e.rec);
    }
    this.batch = [];
  }

  /** End of input: closes every open group, the advantage engine and the last monitored batch. */
  async end(): Promise<void> {
    for (const g of this.open.values()) await this.finish(g, this.o.groupSize !== undefined);
    this.open.clear();
    this.drain();
    if (this.engine) {
      this.engine.end();
      this.fromAdvantages();
      this.summary.advantages = { estimator: this.o.advantages!.estimator, ...this.engine.counts };
    }
    if (this.o.monitors && this.batch.length) this.monitorBatch();
  }

  /** The records finished so far, in input order (and forgets them). */
  take(): PipelineRecord[] {
    const r = this.ready;
    this.ready = [];
    return r;
  }
}

/** The pipeline's part of the end-of-run summary, as text lines. */
export function formatPipelineSummary(s: PipelineSummary): string[] {
  const out: string[] = [];
  if (s.group_by) out.push(`grouped by ${s.group_by}: ${s.groups} groups${s.short_groups ? ` (${s.short_groups} closed with fewer than the group size)` : ''}`);
  const a = s.advantages;
  if (a) {
    const kinds = Object.entries(a.mask_reasons)
      .map(([k, n]) => `${k}=${n}`)
      .join(' ');
    let t = `advantages (${a.estimator}) for ${a.lines} lines: ${a.masked} masked with advantage 0${kinds ? ` (${kinds})` : ''}`;
    if (a.filtered_groups) {
      const n = Object.values(a.filtered_groups).reduce((x, y) => x + y, 0);
      t += `; ${n} group(s) filtered (${Object.entries(a.filtered_groups)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}), ${a.filtered_lines} line(s)`;
    }
    out.push(t);
  }
  for (const m of s.monitors ?? []) {
    out.push(`monitors, batch ${m.batch} (${m.lines} lines): ${m.alerts.length ? `ALERT ${m.alerts.join(', ')}` : 'no monitor alerting'}`);
    for (const r of m.reports) if (r.alert) out.push(`  ${r.monitor}: ${r.signal}`);
  }
  return out;
}
