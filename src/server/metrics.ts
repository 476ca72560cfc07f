// Prometheus metrics for one server (its own prom-client Registry, so several servers can live in
// one process): requests, latency, grades by grader/type/validity, error kinds, queue and in-flight,
// inline graders refused by the policy, connections dropped at the cap, and the reward-hacking monitors over a sliding window of each grader's recent grades.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Result } from '../core/result.js';
import type { GradeInput } from '../core/sample.js';
import { computeMonitors, MonitorWindow, toPoint, type MonitorReport } from '../group/monitors.js';
import type { Admission } from './admission.js';
import { HotCounter, HotHistogram, type CounterCell, type HistogramCell } from './hot-metrics.js';

/** Invalid grades in a row after which a grader's streak is warned about. */
export const INVALID_STREAK = 16;
const INVALID_WARNING_INTERVAL_MS = 60_000;

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A route's cells: its latency, and its request counts by method and status. */
interface RouteCells {
  latency: HistogramCell;
  byMethod: Map<string, Map<number, CounterCell>>;
}

/** A grader's cells: its grade latency, and its grade counts by type (invalid, valid). */
interface GraderCells {
  latency: HistogramCell;
  byType: Map<string, [CounterCell, CounterCell]>;
}

export class ServerMetrics {
  readonly registry = new Registry();
  // the four metrics counted on every request or grade are hot-metrics.ts's (plain numbers until scraped)
  private readonly requests: HotCounter;
  private readonly latency: HotHistogram;
  private readonly grades: HotCounter;
  private readonly gradeErrors: Counter<'grader' | 'kind'>;
  private readonly gradeLatency: HotHistogram;
  private readonly routeCells = new Map<string, RouteCells>();
  private readonly graderCells = new Map<string, GraderCells>();
  private readonly rejected: Counter<'route'>;
  private readonly dropped: Counter;
  private readonly inlineRefused: Counter<'capability'>;
  private readonly invalidStreak: Gauge<'grader'>;
  private readonly invalidWarnings: Counter<'grader' | 'kind'>;
  /** Per grader: invalid grades in a row, the first one's error, and when a warning was last given. */
  private readonly streaks = new Map<string, { n: number; kind: string; message: string; warnedAt: number }>();
  /** Cached label children: prom-client hashes label objects on every call otherwise. */
  private readonly children = new Map<string, { inc(n?: number): void } | { observe(v: number): void }>();
  httpInFlight = 0;
  /** Recent grades per grader label, for the monitors (none when the window size is 0). */
  private readonly windows = new Map<string, MonitorWindow>();
  private monitorReports = new Map<string, MonitorReport[]>();

  constructor(
    admission: Admission,
    private readonly monitorWindow = 2048,
  ) {
    const registers = [this.registry];
    this.requests = new HotCounter(this.registry, 'arbiter_http_requests_total', 'HTTP requests by route, method and status', ['route', 'method', 'status']);
    this.latency = new HotHistogram(this.registry, 'arbiter_http_request_duration_seconds', 'HTTP request latency', ['route'], LATENCY_BUCKETS);
    this.grades = new HotCounter(this.registry, 'arbiter_grades_total', 'samples graded, by grader, grader type and validity', ['grader', 'type', 'valid']);
    this.gradeErrors = new Counter({ name: 'arbiter_grade_errors_total', help: 'invalid grades by error kind', labelNames: ['grader', 'kind'], registers });
    this.gradeLatency = new HotHistogram(
      this.registry,
      'arbiter_grade_duration_seconds',
      'time to grade one sample (excluding queueing)',
      ['grader'],
      LATENCY_BUCKETS,
    );
    this.rejected = new Counter({
      name: 'arbiter_queue_rejections_total',
      help: 'requests refused with 429 because the queue was full',
      labelNames: ['route'],
      registers,
    });
    this.dropped = new Counter({
      name: 'arbiter_connections_dropped_total',
      help: 'connections closed on accept because the server had maxConnections open',
      registers,
    });
    this.invalidStreak = new Gauge({
      name: 'arbiter_grader_invalid_streak',
      help: 'invalid grades in a row for each grader (0 after a valid one); a long streak is a config or outage problem, not a policy',
      labelNames: ['grader'],
      registers,
    });
    this.invalidWarnings = new Counter({
      name: 'arbiter_all_invalid_warnings_total',
      help: 'warnings that every recent grade of a grader was invalid, by the error kind of the streak',
      labelNames: ['grader', 'kind'],
      registers,
    });
    this.inlineRefused = new Counter({
      name: 'arbiter_inline_graders_refused_total',
      help: 'inline grader configs refused by the inline policy',
      registers,
      labelNames: ['capability'],
    });
    new Gauge({
      name: 'arbiter_queue_depth',
      help: 'samples waiting for a grading slot',
      registers,
      collect() {
        this.set(admission.queued);
      },
    });
    new Gauge({
      name: 'arbiter_grades_in_flight',
      help: 'samples being graded now',
      registers,
      collect() {
        this.set(admission.inFlight);
      },
    });
    new Gauge({
      name: 'arbiter_queue_capacity',
      help: 'grading slots plus queue places',
      registers,
      collect() {
        this.set(admission.concurrency + admission.maxQueue);
      },
    });
    const self = this;
    new Gauge({
      name: 'arbiter_http_requests_in_flight',
      help: 'HTTP requests being handled now',
      registers,
      collect() {
        this.set(self.httpInFlight);
      },
    });
    const reports = () => this.monitorReports;
    new Gauge({
      name: 'arbiter_monitor_value',
      help: 'reward-hacking monitor values over the recent-grades window (see docs/groups.md)',
      labelNames: ['grader', 'monitor'],
      registers,
      collect() {
        this.reset();
        for (const [g, rs] of reports()) for (const r of rs) if (r.value !== null) this.labels(g, r.monitor).set(r.value);
      },
    });
    new Gauge({
      name: 'arbiter_monitor_alert',
      help: '1 when a reward-hacking monitor crosses its documented threshold over the recent-grades window',
      labelNames: ['grader', 'monitor'],
      registers,
      collect() {
        this.reset();
        for (const [g, rs] of reports()) for (const r of rs) this.labels(g, r.monitor).set(r.alert ? 1 : 0);
      },
    });
    const windows = this.windows;
    new Gauge({
      name: 'arbiter_monitor_window_size',
      help: "grades in the monitors' sliding window",
      labelNames: ['grader'],
      registers,
      collect() {
        this.reset();
        for (const [g, w] of windows) this.labels(g).set(w.points().length);
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  private child<T>(key: string, make: () => T): T {
    let c = this.children.get(key) as T | undefined;
    if (!c) {
      c = make();
      this.children.set(key, c as never);
    }
    return c;
  }

  request(route: string, method: string, status: number, seconds: number): void {
    let rc = this.routeCells.get(route);
    if (!rc) this.routeCells.set(route, (rc = { latency: this.latency.cell(route), byMethod: new Map() }));
    let bm = rc.byMethod.get(method);
    if (!bm) rc.byMethod.set(method, (bm = new Map()));
    let c = bm.get(status);
    if (!c) bm.set(status, (c = this.requests.cell(route, method, String(status))));
    c.value++;
    rc.latency.observe(seconds);
  }

  /**
   * Records one graded sample; `grader` is the served name ("(inline)" for inline configs). With its
   * input (and group uid) the grade also enters the monitors' window.
   */
  grade(grader: string, r: Result, input?: GradeInput, uid?: string | number | bigint): void {
    if (this.monitorWindow > 0) {
      let w = this.windows.get(grader);
      if (!w) this.windows.set(grader, (w = new MonitorWindow(this.monitorWindow)));
      const rec = uid === undefined ? (r as unknown as Record<string, unknown>) : { ...r, uid };
      w.push(toPoint(rec, {}, input?.sample, input?.item));
    }
    const type = r.metadata?.type ?? 'unknown';
    let gc = this.graderCells.get(grader);
    if (!gc) this.graderCells.set(grader, (gc = { latency: this.gradeLatency.cell(grader), byType: new Map() }));
    let tc = gc.byType.get(type);
    if (!tc) gc.byType.set(type, (tc = [this.grades.cell(grader, type, 'false'), this.grades.cell(grader, type, 'true')]));
    tc[r.valid ? 1 : 0].value++;
    if (!r.valid) {
      const kind = r.error?.kind ?? 'internal_error';
      this.child(`e\0${grader}\0${kind}`, () => this.gradeErrors.labels(grader, kind)).inc();
      this.invalidInARow(grader, kind, r.error?.message ?? '');
    } else {
      const st = this.streaks.get(grader);
      if (st && st.n > 0) {
        st.n = 0;
        this.invalidStreak.labels(grader).set(0);
      }
    }
    const ms = r.metadata?.duration_ms;
    if (typeof ms === 'number') gc.latency.observe(ms / 1000);
  }

  /**
   * Counts an invalid grade; when the last INVALID_STREAK grades of a grader were all invalid,
   * warns (a process warning, printed on stderr by default) naming the grader, the error kind and
   * the first error, at most once a minute per grader: a run whose every reward is invalid is
   * loud, never silent.
   */
  private invalidInARow(grader: string, kind: string, message: string): void {
    let st = this.streaks.get(grader);
    if (!st) this.streaks.set(grader, (st = { n: 0, kind, message, warnedAt: Number.NEGATIVE_INFINITY }));
    if (st.n === 0) {
      st.kind = kind;
      st.message = message;
    }
    st.n++;
    this.invalidStreak.labels(grader).set(st.n);
    const now = Date.now();
    if (st.n >= INVALID_STREAK && now - st.warnedAt >= INVALID_WARNING_INTERVAL_MS) {
      st.warnedAt = now;
      this.invalidWarnings.labels(grader, st.kind).inc();
      process.emitWarning(`grader "${grader}": the last ${st.n} grades were all invalid (${st.kind}: ${st.message.slice(0, 300)})`, {
        type: 'ArbiterInvalidGrades',
        code: 'ARBITER_ALL_INVALID',
      });
    }
  }

  rejection(route: string): void {
    this.rejected.labels(route).inc();
  }

  connectionDropped(): void {
    this.dropped.inc();
  }

  /** One refused inline grader, labelled with the capability of its first refused use. */
  inlineRefusal(capability: string): void {
    this.inlineRefused.labels(capability).inc();
  }

  /** The monitors over each grader's window, as of now. */
  monitors(): Map<string, MonitorReport[]> {
    const out = new Map<string, MonitorReport[]>();
    for (const [g, w] of this.windows) out.set(g, computeMonitors(w.points()));
    return out;
  }

  async text(): Promise<string> {
    this.monitorReports = this.monitors();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
