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
  // an infinity is close to nothing but itself (|inf - x| <= tol·inf would say yes)
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(a - b);
  return diff <= tol || diff <= tol * Math.max(Math.abs(a), Math.abs(b));
}

// ---- exact decimals: for numbers a double cannot hold (integers past 2^53, literals that overflow) ----

/** sign · digits · 10^e, digits without leading or trailing zeros ('' for zero). */
interface Dec {
  s: -1 | 0 | 1;
  d: string;
  e: number;
}

/**
 * The most decimal places two numbers may be apart and still be subtracted exactly (10^100000 is a
 * 330 kbit BigInt); further apart, |a − b| is taken as the larger magnitude (off by a relative
 * 10^-100000 at most).
 */
const MAX_SHIFT = 100_000;

function dec(neg: boolean, digits: string, e: number): Dec {
  let i = 0;
  while (i < digits.length && digits.charCodeAt(i) === 48) i++;
  let j = digits.length;
  while (j > i && digits.charCodeAt(j - 1) === 48) j--;
  if (i === j) return { s: 0, d: '', e: 0 };
  return { s: neg ? -1 : 1, d: digits.slice(i, j), e: e + (digits.length - j) };
}

const magnitude = (x: Dec): number => x.e + x.d.length - 1;

/** The exact value of a finite double or a BigInt. */
function decOf(x: number | bigint): Dec {
  if (typeof x === 'bigint') return dec(x < 0n, (x < 0n ? -x : x).toString(), 0);
  if (Number.isInteger(x)) return dec(x < 0, BigInt(Math.abs(x)).toString(), 0);
  // a non-integral double is n / 2^k exactly; doubling is exact and stops by k = 1074
  let m = Math.abs(x);
  let k = 0;
  while (!Number.isInteger(m)) {
    m *= 2;
    k++;
  }
  return dec(x < 0, (BigInt(m) * 5n ** BigInt(k)).toString(), -k);
}

const DEC_TOKEN = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/** The exact value of a finite decimal token (`12`, `-1.5e400`, `.5`), or undefined. */
function decOfToken(t: string): Dec | undefined {
  const m = DEC_TOKEN.exec(t);
  if (!m || (m[2] === '' && !m[3])) return undefined;
  const frac = m[3] ?? '';
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  return dec(m[1] === '-', m[2]! + frac, exp - frac.length);
}

/** Compares |x| with |y|. */
function cmpAbs(x: Dec, y: Dec): number {
  if (x.s === 0 || y.s === 0) return (x.s === 0 ? 0 : 1) - (y.s === 0 ? 0 : 1);
  const mx = magnitude(x);
  const my = magnitude(y);
  if (mx !== my) return mx < my ? -1 : 1;
  const n = Math.max(x.d.length, y.d.length);
  const a = x.d.padEnd(n, '0');
  const b = y.d.padEnd(n, '0');
  return a < b ? -1 : a > b ? 1 : 0;
}

const abs = (x: Dec): Dec => (x.s < 0 ? { ...x, s: 1 } : x);

/** |x − y|. */
function absDiff(x: Dec, y: Dec): Dec {
  if (x.s === 0) return abs(y);
  if (y.s === 0) return abs(x);
  const lo = Math.min(x.e, y.e);
  if (Math.max(x.e, y.e) - lo > MAX_SHIFT) return cmpAbs(x, y) >= 0 ? abs(x) : abs(y);
  const big = (v: Dec) => BigInt(v.s) * BigInt(v.d) * 10n ** BigInt(v.e - lo);
  const r = big(x) - big(y);
  return dec(false, (r < 0n ? -r : r).toString(), lo);
}

function mulAbs(x: Dec, y: Dec): Dec {
  if (x.s === 0 || y.s === 0) return { s: 0, d: '', e: 0 };
  return dec(false, (BigInt(x.d) * BigInt(y.d)).toString(), x.e + y.e);
}

/** |a − b| <= tol or <= tol · max(|a|, |b|), decided on the exact values. */
function decClose(a: Dec, b: Dec, tol: number): boolean {
  if (a.s === b.s && a.d === b.d && a.e === b.e) return true;
  if (!Number.isFinite(tol)) return tol > 0;
  const t = decOf(Math.abs(tol));
  const diff = absDiff(a, b);
  if (cmpAbs(diff, t) <= 0) return true;
  return cmpAbs(diff, mulAbs(t, cmpAbs(a, b) >= 0 ? a : b)) <= 0;
}

/** Exactly equal values (a double and a BigInt compare by their exact values, as in Python). */
function exactEqual(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
  const [big, num] = (typeof a === 'bigint' ? [a, b] : [b, a]) as [bigint, number];
  return Number.isInteger(num) && BigInt(num) === big;
}

const NUM = /^[+-]?(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?|inf|infinity|nan)$/i;
const NON_FINITE = /^[+-]?(inf|infinity|nan)$/i;

const toNumber = (t: string): number => Number(t.replace(/^([+-]?)inf(inity)?$/i, '$1Infinity'));

/**
 * Two numeric tokens within `tol`: in doubles when both are short and finite there, else on their
 * exact decimal values (an integer past 2^53 or a literal such as 1e400 that overflows a double is
 * never guessed equal to another).
 */
function tokensClose(g: string, e: string, tol: number): boolean {
  const a = toNumber(g);
  const b = toNumber(e);
  const ng = NON_FINITE.test(g);
  const ne = NON_FINITE.test(e);
  if (ng || ne) return ng && ne && numbersClose(a, b, tol); // a finite literal (even 1e400) is never inf or nan
  // short, finite and not underflowed to 0: a double holds both closely enough for the tolerance
  if (g.length < 16 && e.length < 16 && Number.isFinite(a) && Number.isFinite(b) && a !== 0 && b !== 0) return numbersClose(a, b, tol);
  const x = decOfToken(g);
  const y = decOfToken(e);
  return x !== undefined && y !== undefined && decClose(x, y, tol);
}

/** True when `got` matches `expected` under the mode. */
export function outputsMatch(got: string, expected: string, mode: CompareMode, tol: number): boolean {
  if (mode === 'exact') return got === expected;
  const g = tokens(got);
  const e = tokens(expected);
  if (g.length !== e.length) return false;
  for (let i = 0; i < g.length; i++) {
    if (g[i] === e[i]) continue;
    if (mode !== 'float' || !NUM.test(g[i]!) || !NUM.test(e[i]!)) return false;
    if (!tokensClose(g[i]!, e[i]!, tol)) return false;
  }
  return true;
}

const isNum = (x: unknown): x is number | bigint => typeof x === 'number' || typeof x === 'bigint';

/**
 * Deep equality of JSON values; numbers compared with `tol` when it is set. Integers past 2^53
 * arrive as BigInt (parseJsonExact) and are compared exactly, with each other and with doubles.
 */
export function valuesEqual(a: unknown, b: unknown, tol?: number): boolean {
  if (typeof a === 'number' && typeof b === 'number') return tol === undefined ? a === b : numbersClose(a, b, tol);
  if (isNum(a) && isNum(b)) {
    if (tol === undefined) return exactEqual(a, b);
    if ((typeof a === 'number' && !Number.isFinite(a)) || (typeof b === 'number' && !Number.isFinite(b))) return false; // a BigInt is finite
    return decClose(decOf(a), decOf(b), tol);
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => valuesEqual(x, bb[i], tol));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && valuesEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], tol));
}

/** Short quoted preview of a text for reasons. */
export function preview(s: string, n = 80): string {
  const one = JSON.stringify(s.length > n ? s.slice(0, n) + '…' : s);
  return one;
}
