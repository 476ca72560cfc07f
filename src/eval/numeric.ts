// Number semantics of the benchmarks' own Python scripts, so re-scored numbers match theirs bit for
// bit: Python's float repr and "{:.Nf}" formatting, numpy's pairwise summation (np.sum / np.mean),
// and scikit-learn's Cohen's kappa (the same operations in the same order).

/** Python's repr(float) (what `str.format` and `json.dump` print). */
export function pyRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const neg = x < 0;
  // shortest round-trip digits, as both languages pick them
  const [mant, expStr] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const exp = Number(expStr);
  const decpt = exp + 1; // position of the decimal point relative to the digits
  let out: string;
  if (decpt <= -4 || decpt > 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    out = `${m}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  } else if (decpt <= 0) {
    out = `0.${'0'.repeat(-decpt)}${digits}`;
  } else if (decpt >= digits.length) {
    out = `${digits}${'0'.repeat(decpt - digits.length)}.0`;
  } else {
    out = `${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  return neg ? `-${out}` : out;
}

/** Python's format(x, '.Nf'): correctly rounded, exact ties to even (JS toFixed rounds ties up). */
export function pyFixed(x: number, n: number): string {
  if (!Number.isFinite(x)) return pyRepr(x);
  const s = x.toFixed(n);
  const ax = Math.abs(x);
  if (ax >= 1e21 || ax < 1e-14) return s;
  // the exact decimal expansion of the double (doubles in this range have < 100 fraction digits)
  const exact = ax.toFixed(100);
  const dot = exact.indexOf('.');
  const tail = exact.slice(dot + 1 + n);
  if (!/^50*$/.test(tail)) return s;
  // an exact tie: toFixed rounded away from zero; Python keeps the even neighbour
  const kept = exact.slice(0, dot + 1 + n).replace(/\.$/, '');
  const lastDigit = Number(kept[kept.length - 1]);
  if (lastDigit % 2 === 0) return (x < 0 ? '-' : '') + kept;
  return s;
}

/** numpy's pairwise summation of float64 values (np.add.reduce over a contiguous array). */
export function npSum(a: ArrayLike<number>, start = 0, n = a.length - start): number {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += a[start + i]!;
    return res;
  }
  if (n <= 128) {
    const r = [0, 0, 0, 0, 0, 0, 0, 0];
    for (let j = 0; j < 8; j++) r[j] = a[start + j]!;
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j]! += a[start + i + j]!;
    let res = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) res += a[start + i]!;
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return npSum(a, start, n2) + npSum(a, start + n2, n - n2);
}

/** np.mean over float64 values. */
export function npMean(a: ArrayLike<number>): number {
  return npSum(a) / a.length;
}

/**
 * Confusion counts of two label sequences, accumulated one pair at a time (bounded memory): the
 * input of Cohen's kappa.
 */
export class PairCounts {
  private readonly counts = new Map<string, number>();
  private readonly labels = new Map<string, number | string>();
  n = 0;
  add(y1: number | string, y2: number | string): void {
    const k1 = `${typeof y1}:${y1}`;
    const k2 = `${typeof y2}:${y2}`;
    this.labels.set(k1, y1);
    this.labels.set(k2, y2);
    const key = `${k1}\u0000${k2}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.n++;
  }
  /** The sorted label set (numbers before strings, as numpy sorts a homogeneous array). */
  sortedLabels(): { key: string; value: number | string }[] {
    return [...this.labels.entries()]
      .map(([key, value]) => ({ key, value }))
      .sort((a, b) =>
        typeof a.value === 'number' && typeof b.value === 'number'
          ? a.value - b.value
          : String(a.value) < String(b.value)
            ? -1
            : String(a.value) > String(b.value)
              ? 1
              : 0,
      );
  }
  /** confusion[i][j] = #(y1 = labels[i], y2 = labels[j]), as sklearn's confusion_matrix(y1, y2). */
  confusion(): { labels: (number | string)[]; matrix: number[][] } {
    const ls = this.sortedLabels();
    const matrix = ls.map((a) => ls.map((b) => this.counts.get(`${a.key}\u0000${b.key}`) ?? 0));
    return { labels: ls.map((l) => l.value), matrix };
  }
}

/**
 * sklearn.metrics.cohen_kappa_score(y1, y2) with no weights, from accumulated counts: the same
 * float operations in the same order. NaN when undefined (every label the same).
 */
export function cohenKappa(c: PairCounts): number {
  const { matrix } = c.confusion();
  const k = matrix.length;
  if (k === 0) return Number.NaN;
  const sum0 = Array.from({ length: k }, (_, j) => matrix.reduce((s, row) => s + row[j]!, 0));
  const sum1 = matrix.map((row) => row.reduce((s, v) => s + v, 0));
  const total = sum0.reduce((s, v) => s + v, 0);
  let num = 0;
  const weightedExpected: number[] = [];
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const w = i === j ? 0 : 1;
      num += w * matrix[i]![j]!;
      weightedExpected.push(w * ((sum0[i]! * sum1[j]!) / total));
    }
  }
  const den = npSum(weightedExpected);
  if (den === 0) return Number.NaN;
  return 1 - num / den;
}
