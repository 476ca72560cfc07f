// Output and value comparison for the stdio and function formats: whitespace-normalised,
// exact, or token-wise with a float tolerance; deep equality of JSON values.

export type CompareMode = 'whitespace' | 'exact' | 'float';

function tokens(s: string): string[] {
  const t = s.trim();
  return t === '' ? [] : t.split(/\s+/);
}

function numbersClose(a: number, b: number, tol: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  const diff = Math.abs(a - b);
  return diff <= tol || diff <= tol * Math.max(Math.abs(a), Math.abs(b));
}

const NUM = /^[+-]?(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?|inf|infinity|nan)$/i;

/** True when `got` matches `expected` under the mode. */
export function outputsMatch(got: string, expected: string, mode: CompareMode, tol: number): boolean {
  if (mode === 'exact') return got === expected;
  const g = tokens(got);
  const e = tokens(expected);
  if (g.length !== e.length) return false;
  for (let i = 0; i < g.length; i++) {
    if (g[i] === e[i]) continue;
    if (mode !== 'float' || !NUM.test(g[i]!) || !NUM.test(e[i]!)) return false;
    if (!numbersClose(Number(g[i]!.replace(/^([+-]?)inf(inity)?$/i, '$1Infinity')), Number(e[i]!.replace(/^([+-]?)inf(inity)?$/i, '$1Infinity')), tol))
      return false;
  }
  return true;
}

/** Deep equality of JSON values; numbers compared with `tol` when `floatTol` is set. */
export function valuesEqual(a: unknown, b: unknown, tol?: number): boolean {
  if (typeof a === 'number' && typeof b === 'number') return tol === undefined ? a === b : numbersClose(a, b, tol);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => valuesEqual(x, bb[i], tol));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && valuesEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], tol));
}

/** Short quoted preview of a text for reasons. */
export function preview(s: string, n = 80): string {
  const one = JSON.stringify(s.length > n ? s.slice(0, n) + '…' : s);
  return one;
}
