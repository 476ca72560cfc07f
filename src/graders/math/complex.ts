// Complex floating-point arithmetic for numeric evaluation (principal branches throughout).
// Hand-written and allocation-light: this runs on the hot path of symbolic comparison.
export interface C {
  re: number;
  im: number;
}

export const NAN: C = { re: NaN, im: NaN };

export const cadd = (a: C, b: C): C => ({ re: a.re + b.re, im: a.im + b.im });
export const csub = (a: C, b: C): C => ({ re: a.re - b.re, im: a.im - b.im });
export const cneg = (a: C): C => ({ re: -a.re, im: -a.im });
export function cmul(a: C, b: C): C {
  if (a.im === 0 && b.im === 0) return { re: a.re * b.re, im: 0 };
  return { re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re };
}
export function cdiv(a: C, b: C): C {
  if (b.im === 0) {
    if (b.re === 0) return NAN;
    return { re: a.re / b.re, im: a.im / b.re };
  }
  const d = b.re * b.re + b.im * b.im;
  return { re: (a.re * b.re + a.im * b.im) / d, im: (a.im * b.re - a.re * b.im) / d };
}
export const cabs = (a: C): number => Math.hypot(a.re, a.im);
export function cexp(a: C): C {
  const m = Math.exp(a.re);
  if (a.im === 0) return { re: m, im: 0 };
  return { re: m * Math.cos(a.im), im: m * Math.sin(a.im) };
}
export function clog(a: C): C {
  if (a.im === 0 && a.re > 0) return { re: Math.log(a.re), im: 0 };
  if (a.re === 0 && a.im === 0) return NAN;
  return { re: Math.log(cabs(a)), im: Math.atan2(a.im, a.re) };
}
export function csqrt(a: C): C {
  if (a.im === 0) return a.re >= 0 ? { re: Math.sqrt(a.re), im: 0 } : { re: 0, im: Math.sqrt(-a.re) };
  const r = cabs(a);
  const re = Math.sqrt((r + a.re) / 2);
  const im = Math.sign(a.im) * Math.sqrt((r - a.re) / 2);
  return { re, im };
}
export function cpow(a: C, b: C): C {
  if (b.im === 0 && Number.isInteger(b.re) && Math.abs(b.re) <= 64) {
    let e = Math.abs(b.re);
    let r: C = { re: 1, im: 0 };
    let x = a;
    while (e > 0) {
      if (e & 1) r = cmul(r, x);
      x = cmul(x, x);
      e >>= 1;
    }
    return b.re < 0 ? cdiv({ re: 1, im: 0 }, r) : r;
  }
  if (a.im === 0 && b.im === 0 && a.re > 0) return { re: Math.pow(a.re, b.re), im: 0 };
  if (a.re === 0 && a.im === 0) return b.re > 0 ? { re: 0, im: 0 } : NAN;
  return cexp(cmul(b, clog(a)));
}
/** Real n-th root for real a and odd n (so the cube root of -8 is -2), principal root otherwise. */
export function croot(a: C, n: C): C {
  if (a.im === 0 && n.im === 0 && Number.isInteger(n.re) && n.re % 2 !== 0 && a.re < 0) {
    return { re: -Math.pow(-a.re, 1 / n.re), im: 0 };
  }
  return cpow(a, cdiv({ re: 1, im: 0 }, n));
}
export function csin(a: C): C {
  if (a.im === 0) return { re: Math.sin(a.re), im: 0 };
  return { re: Math.sin(a.re) * Math.cosh(a.im), im: Math.cos(a.re) * Math.sinh(a.im) };
}
export function ccos(a: C): C {
  if (a.im === 0) return { re: Math.cos(a.re), im: 0 };
  return { re: Math.cos(a.re) * Math.cosh(a.im), im: -Math.sin(a.re) * Math.sinh(a.im) };
}
export const ctan = (a: C): C => cdiv(csin(a), ccos(a));
const I: C = { re: 0, im: 1 };
const ONE: C = { re: 1, im: 0 };
/** asin z = -i log(iz + sqrt(1 - z^2)) */
export function casin(a: C): C {
  if (a.im === 0 && Math.abs(a.re) <= 1) return { re: Math.asin(a.re), im: 0 };
  return cmul(cneg(I), clog(cadd(cmul(I, a), csqrt(csub(ONE, cmul(a, a))))));
}
export function cacos(a: C): C {
  if (a.im === 0 && Math.abs(a.re) <= 1) return { re: Math.acos(a.re), im: 0 };
  return csub({ re: Math.PI / 2, im: 0 }, casin(a));
}
/** atan z = (i/2) log((i + z)/(i - z)) */
export function catan(a: C): C {
  if (a.im === 0) return { re: Math.atan(a.re), im: 0 };
  return cmul({ re: 0, im: 0.5 }, clog(cdiv(cadd(I, a), csub(I, a))));
}
/** asinh z = log(z + sqrt(z^2 + 1)) */
export function casinh(a: C): C {
  if (a.im === 0) return { re: Math.asinh(a.re), im: 0 };
  return clog(cadd(a, csqrt(cadd(cmul(a, a), ONE))));
}
/** acosh z = log(z + sqrt(z + 1) sqrt(z - 1)) (principal branch) */
export function cacosh(a: C): C {
  if (a.im === 0 && a.re >= 1) return { re: Math.acosh(a.re), im: 0 };
  return clog(cadd(a, cmul(csqrt(cadd(a, ONE)), csqrt(csub(a, ONE)))));
}
/** atanh z = log((1 + z)/(1 - z)) / 2 */
export function catanh(a: C): C {
  if (a.im === 0 && Math.abs(a.re) < 1) return { re: Math.atanh(a.re), im: 0 };
  return cmul({ re: 0.5, im: 0 }, clog(cdiv(cadd(ONE, a), csub(ONE, a))));
}
export const isFiniteC = (a: C): boolean => Number.isFinite(a.re) && Number.isFinite(a.im);

/** |a - b| within rel * max(|a|, |b|) or within abs. */
export function cclose(a: C, b: C, rel: number, abs: number): boolean {
  const d = Math.hypot(a.re - b.re, a.im - b.im);
  if (d <= abs) return true;
  return d <= rel * Math.max(cabs(a), cabs(b));
}
