// verl's masked_whiten over every response token of a batch, shared by the token-level estimators.
// Token values are regenerated per row (a batch may hold hundreds of millions of tokens), never held.
import { whereOf, type Row } from './rows.js';
import { live } from './compute.js';

/** verl's masked_mean denominator offset and masked_whiten's variance offset. */
const WHITEN_EPS = 1e-8;

/** A row's token values, generated on demand (both statistics passes and the output call it). */
export type TokenValues = (r: Row) => Float64Array;

/**
 * verl masked_whiten over every token of `rows`: mean = Σv / (N + 1e-8), variance = Σ(v - mean)² /
 * (N + 1e-8) · N / (N - 1), whitened = (v - mean) / sqrt(variance + 1e-8). Two passes, like verl;
 * the token values are regenerated per row rather than held for the whole batch. `values` (and
 * `constant`) give the token values divided by `k` (1 unless their squares would leave the float64
 * range): then (v - mean) / sqrt(variance + 1e-8) = (y - my) / sqrt(variance_y + 1e-8 / k²).
 */
export function whiten(rows: Row[], values: TokenValues, constant?: Map<Row, number>, k = 1): void {
  let n = 0;
  let sum = 0;
  for (const r of rows) {
    n += r.len;
    const c = constant?.get(r);
    if (c !== undefined) sum += c * r.len;
    else {
      const v = values(r);
      for (let t = 0; t < v.length; t++) sum += v[t]!;
    }
  }
  if (n < 2) {
    for (const r of rows) {
      r.masked = 'bad_input';
      r.error = { kind: 'bad_input', message: `${whereOf(r)}: whitening needs at least 2 response tokens of scorable lines in the batch, got ${n}` };
    }
    return;
  }
  const m = sum / (n + WHITEN_EPS);
  let ss = 0;
  // each row's largest |v - mean|: its token advantages are finite when that one's is
  const far = new Map<Row, number>();
  for (const r of rows) {
    const c = constant?.get(r);
    if (c !== undefined) {
      ss += r.len * (c - m) ** 2;
      far.set(r, Math.abs(c - m));
    } else {
      const v = values(r);
      let f = 0;
      for (let t = 0; t < v.length; t++) {
        const d = v[t]! - m;
        ss += d * d;
        if (Math.abs(d) > f) f = Math.abs(d);
      }
      far.set(r, f);
    }
  }
  const variance = (ss / (n + WHITEN_EPS)) * (n / (n - 1));
  const inv =
    k === 1 ? 1 / Math.sqrt(variance + WHITEN_EPS) : k > 1 ? 1 / Math.sqrt(variance + WHITEN_EPS / k / k) : k / Math.sqrt(k * k * variance + WHITEN_EPS);
  for (const r of rows) {
    r.whiten = { mean: m, inv, values };
    const c = constant?.get(r);
    r.adv = ((c ?? values(r)[0]!) - m) * inv;
    if (!Number.isFinite(far.get(r)! * inv)) r.adv = NaN; // some token's advantage is out of range: maskNonFinite masks the row
  }
}

/** The token advantages of a whitened row. */
export function tokenAdvantages(r: Row): number[] {
  const w = r.whiten!;
  const v = w.values(r);
  const out = new Array<number>(v.length);
  for (let t = 0; t < v.length; t++) out[t] = (v[t]! - w.mean) * w.inv;
  return out;
}

/** The live rows with at least one token (a row with response_length 0 is masked no_tokens). */
export function withTokens(rows: Row[]): Row[] {
  const xs: Row[] = [];
  for (const r of live(rows)) {
    if (r.len === 0) r.masked = 'no_tokens';
    else xs.push(r);
  }
  return xs;
}
