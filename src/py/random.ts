// Python's `random.Random(seed)` for an int seed, bit for bit: the MT19937 generator seeded with
// init_by_array over the seed's 32-bit words (CPython's random_seed), getrandbits, randint via
// rejection sampling on getrandbits(n.bit_length()) (_randbelow), random() from two draws, uniform.
import { PyException, Unsupported } from './errors.js';
import type { PyValue } from './values.js';

const N = 624;
const M = 397;

export class PyRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  constructor(seed: PyValue) {
    if (typeof seed === 'boolean') seed = seed ? 1n : 0n;
    if (typeof seed !== 'bigint') {
      if (seed === null) throw new Unsupported('random.Random(None) seeds from the clock; only int seeds are reproducible');
      throw new Unsupported(`random seed of type ${typeof seed === 'number' ? 'float' : typeof seed} is not evaluated (only int seeds)`);
    }
    let n = seed < 0n ? -seed : seed;
    const key: number[] = [];
    if (n === 0n) key.push(0);
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: number[]): void {
    this.initGenrand(19650218);
    const mt = this.mt;
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** One 32-bit output of MT19937. */
  genrandUint32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk]! & 0x80000000) | (mt[kk + 1]! & 0x7fffffff);
        mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk]! & 0x80000000) | (mt[kk + 1]! & 0x7fffffff);
        mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      const y = (mt[N - 1]! & 0x80000000) | (mt[0]! & 0x7fffffff);
      mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random.getrandbits(k). */
  getrandbits(k: number): bigint {
    if (k <= 32) return BigInt(this.genrandUint32() >>> (32 - k));
    let out = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32) {
      let r = this.genrandUint32();
      if (left < 32) r >>>= 32 - left;
      out |= BigInt(r) << shift;
      shift += 32n;
    }
    return out;
  }

  /** random.random(): 53 random bits in [0, 1). */
  random(): number {
    const a = this.genrandUint32() >>> 5;
    const b = this.genrandUint32() >>> 6;
    return (a * 67108864 + b) * (1 / 9007199254740992);
  }

  private randbelow(n: bigint): bigint {
    const k = n.toString(2).length;
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** random.randint(a, b) for int bounds. */
  randint(a: bigint, b: bigint): bigint {
    const width = b + 1n - a;
    if (width <= 0n) throw new PyException('ValueError', `empty range for randrange() (${a}, ${b + 1n}, ${width})`);
    return a + this.randbelow(width);
  }

  /** random.uniform(a, b). */
  uniform(a: number, b: number): number {
    return a + (b - a) * this.random();
  }
}
