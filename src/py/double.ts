// Binary pieces of numbers: the exact binary value of a finite IEEE-754 double, as Python's
// float.as_integer_ratio and decimal.Decimal(float) see it (|x| = mantissa × 2^exp, the sign is the
// caller's), math.ldexp without an overflowing power of two, and int.bit_length.

/** |x| = m × 2^exp exactly, for a finite x (subnormals included; m is 0 for ±0). */
export function doubleParts(x: number): { m: bigint; exp: number } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const bits = buf.getBigUint64(0);
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  return e === 0 ? { m: frac, exp: -1074 } : { m: frac | (1n << 52n), exp: e - 1075 };
}

/** v × 2^e (math.ldexp) without overflowing or underflowing the power of two on the way. */
export function ldexp(v: number, e: number): number {
  while (e > 1000) {
    v *= 2 ** 1000;
    e -= 1000;
  }
  while (e < -1000) {
    v *= 2 ** -1000;
    e += 1000;
  }
  return v * 2 ** e;
}

/** int.bit_length(): the bits of |n|, 0 for 0. */
export function bitLength(n: bigint): number {
  if (n < 0n) n = -n;
  return n === 0n ? 0 : n.toString(2).length;
}
