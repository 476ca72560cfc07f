// The metrics counted on every request and every grade, kept as plain numbers in cells the caller
// holds on to, and handed to the prom-client registry only when it is scraped. prom-client's own
// counters and histograms build a label object, validate it and hash it into a string on every
// `inc`/`observe`, even through a cached `labels()` child: on a one-sample request that was several
// microseconds of the server's path (docs/server.md#benchmark). The text these write is prom-client's
// own format (the registry formats it), so /metrics reads as before.
import type { Registry } from 'prom-client';

/** One label set of a counter: add to `value`. */
export interface CounterCell {
  value: number;
}

/** One label set of a histogram. */
export interface HistogramCell {
  observe(v: number): void;
}

type Labels = Record<string, string>;

/** What the registry reads of a metric when it is scraped (prom-client's MetricObjectWithValues). */
interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: { labels: Record<string, string | number>; sharedLabels?: Labels; value: number; metricName?: string }[];
}

function labelsOf(names: readonly string[], values: readonly string[]): Labels {
  const out: Labels = {};
  for (let i = 0; i < names.length; i++) out[names[i]!] = values[i]!;
  return out;
}

abstract class HotMetric<C> {
  protected readonly cells = new Map<string, { labels: Labels; cell: C }>();
  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    // the registry takes any object with name, help, type and get(): prom-client's own metrics are such objects
    registry.registerMetric(this as never);
  }

  /** The cell of one label set (values in labelNames' order); keep it and add to it directly. */
  cell(...values: string[]): C {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name}: ${this.labelNames.length} label values expected, got ${values.length}`);
    const key = values.join('\u0000');
    let e = this.cells.get(key);
    if (!e) this.cells.set(key, (e = { labels: labelsOf(this.labelNames, values), cell: this.make() }));
    return e.cell;
  }

  protected abstract make(): C;
  abstract get(): Promise<Exported>;

  reset(): void {
    this.cells.clear();
  }
}

export class HotCounter extends HotMetric<CounterCell> {
  readonly type = 'counter';
  protected make(): CounterCell {
    return { value: 0 };
  }
  async get(): Promise<Exported> {
    const values = [...this.cells.values()].map(({ labels, cell }) => ({ labels, value: cell.value }));
    return { name: this.name, help: this.help, type: 'counter', aggregator: 'sum', values };
  }
}

class Buckets implements HistogramCell {
  /** Per bucket (not cumulative); the last one is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

export class HotHistogram extends HotMetric<HistogramCell> {
  readonly type = 'histogram';
  constructor(
    registry: Registry,
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly buckets: readonly number[],
  ) {
    super(registry, name, help, labelNames);
  }
  protected make(): HistogramCell {
    return new Buckets(this.buckets);
  }
  async get(): Promise<Exported> {
    const values: Exported['values'] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, cell } of this.cells.values()) {
      const c = cell as Buckets;
      let acc = 0;
      this.buckets.forEach((le, i) => {
        acc += c.counts[i]!;
        values.push({ labels: { le }, sharedLabels: labels, value: acc, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: c.count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: labels, value: c.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: labels, value: c.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }
}
