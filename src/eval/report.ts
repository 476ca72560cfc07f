// The evaluation report: what every suite produces and every renderer (JSON, HTML, Markdown,
// comparison) reads. Metrics keep the benchmark's own names; headline numbers, plots and
// worst-case tables are generic so one renderer draws every suite.

export const REPORT_FORMAT = 'arbiter-eval/1';

export interface Headline {
  /** Dotted path of this number inside `metrics`. */
  key: string;
  label: string;
  value: number | null;
  /** Decimals shown (the benchmark's own rounding where it has one). */
  digits: number;
  unit?: '%' | '';
  /** A published value to compare with (given on the command line). */
  published?: number;
  /** In a comparison: the same number in the baseline run (A). */
  baseline?: number | null;
}

export type PlotSpec =
  | { kind: 'bars'; id: string; title: string; y_label: string; max?: number; data: { label: string; value: number; group?: string }[] }
  | { kind: 'stacked'; id: string; title: string; y_label: string; data: { label: string; part: string; value: number }[] }
  | { kind: 'matrix'; id: string; title: string; row_label: string; col_label: string; rows: string[]; cols: string[]; values: number[][]; digits: number }
  | {
      kind: 'lines';
      id: string;
      title: string;
      x_label: string;
      y_label: string;
      diagonal?: boolean;
      series: { name: string; points: { x: number; y: number; n?: number }[] }[];
    };

export interface Table {
  id: string;
  title: string;
  columns: string[];
  rows: (string | number | null)[][];
  /** How many rows there were before the table was cut to its limit. */
  total: number;
}

/** One case drawn on its screenshot: the gold box and what the model predicted, in the image's pixels. */
export interface OverlayCase {
  where: string;
  caption: string;
  /** The screenshot as a data URL (PNG, JPEG, WebP or GIF, checked by its bytes). */
  image: string;
  width: number;
  height: number;
  gold: [number, number, number, number];
  point?: [number, number];
  box?: [number, number, number, number];
  score: number | null;
}

/** Cases drawn on their images (GUI grounding's worst cases), most severe first. */
export interface OverlaySet {
  id: string;
  title: string;
  cases: OverlayCase[];
  /** How many cases there were before the set was cut to its limit. */
  total: number;
}

export interface EvalReport {
  format: typeof REPORT_FORMAT;
  suite: string;
  title: string;
  created: string;
  inputs: Record<string, unknown>;
  metrics: Record<string, unknown>;
  headline: Headline[];
  plots: PlotSpec[];
  tables: Table[];
  /** Cases drawn on their images (only suites over images have them). */
  overlays?: OverlaySet[];
  counts: { records: number; skipped: number; invalid: number };
  /** Records that could not be used, with where they came from (first 100). */
  problems: string[];
  notes: string[];
  /** Program texts shown whole, each under its title (e.g. the winning reward of `arbiter design`). */
  code?: { title: string; text: string }[];
}

/** Collects per-record problems: all are counted, the first `limit` are kept verbatim. */
export class Problems {
  readonly list: string[] = [];
  count = 0;
  constructor(private readonly limit = 100) {}
  add(where: string, message: string): void {
    this.count++;
    if (this.list.length < this.limit) this.list.push(`${where}: ${message}`);
  }
}

export function newReport(suite: string, title: string, inputs: Record<string, unknown>): EvalReport {
  return {
    format: REPORT_FORMAT,
    suite,
    title,
    created: new Date().toISOString(),
    inputs,
    metrics: {},
    headline: [],
    plots: [],
    tables: [],
    counts: { records: 0, skipped: 0, invalid: 0 },
    problems: [],
    notes: [],
  };
}

/** Reads `metrics` at a dotted path. */
export function metricAt(r: Pick<EvalReport, 'metrics'>, key: string): unknown {
  let cur: unknown = r.metrics;
  for (const p of key.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/** The command that wrote a report, as its pages name it. */
export function madeBy(r: Pick<EvalReport, 'suite'>): string {
  if (r.suite === 'compare') return 'arbiter report';
  return r.suite === 'design' ? 'arbiter design' : `arbiter eval ${r.suite}`;
}

/** A table cell's text: numbers rounded to at most 4 decimals (integers as they are), the rest cut to `n` characters. */
export function cellText(v: unknown, n = 400): string {
  if (typeof v === 'number') return Number.isInteger(v) || !Number.isFinite(v) ? String(v) : String(Number(v.toFixed(4)));
  return clip(v, n);
}

/** The text a report shows for a number (shared by HTML, Markdown and the render test). */
export function showNumber(v: number | null | undefined, digits: number): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return 'n/a';
  return v.toFixed(digits);
}

/** Numeric and text leaves of `metrics` as [dotted key, value] (small numeric arrays as JSON). */
export function flatMetrics(m: Record<string, unknown>, prefix = ''): [string, number | string | null][] {
  const out: [string, number | string | null][] = [];
  for (const [k, v] of Object.entries(m)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'number' || typeof v === 'string' || v === null) out.push([key, v]);
    else if (typeof v === 'boolean') out.push([key, String(v)]);
    else if (Array.isArray(v)) {
      if (v.length <= 16 && JSON.stringify(v).length <= 300) out.push([key, JSON.stringify(v)]);
    } else if (v && typeof v === 'object') out.push(...flatMetrics(v as Record<string, unknown>, key));
  }
  return out;
}

/** Cuts long text for a table cell. */
export function clip(s: unknown, n = 400): string {
  const t = typeof s === 'string' ? s : s === undefined || s === null ? '' : JSON.stringify(s);
  return t.length > n ? `${t.slice(0, n)}…` : t;
}

/** Validates a parsed JSON file as a report (for `arbiter report`). */
export function asReport(v: unknown, where: string): EvalReport {
  const r = v as Partial<EvalReport> | null;
  if (!r || typeof r !== 'object' || r.format !== REPORT_FORMAT)
    throw new Error(`${where} is not an arbiter eval report (expected "format": "${REPORT_FORMAT}", as written by arbiter eval --json)`);
  for (const k of ['metrics', 'headline', 'plots', 'tables'] as const) {
    if (r[k] === undefined || typeof r[k] !== 'object') throw new Error(`${where}: field "${k}" is missing or not an object`);
  }
  return r as EvalReport;
}
