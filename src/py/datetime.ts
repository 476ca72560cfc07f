// The datetime pieces the simulated APIs use: strptime for '%Y-%m-%d' and '%Y-%m-%d %H:%M:%S'
// (CPython's _strptime patterns, its error messages and calendar checks), comparable date-times,
// and strftime('%Y-%m-%d %H:%M:%S') of a wall-clock time plus an offset in seconds.
import { PyException } from './errors.js';
import { strRepr } from './format.js';

/** [year, month, day, hour, minute, second, microsecond]: compares like a Python datetime. */
export type DateTime = [number, number, number, number, number, number, number];

export const DATETIME_MIN: DateTime = [1, 1, 1, 0, 0, 0, 0];
export const DATETIME_MAX: DateTime = [9999, 12, 31, 23, 59, 59, 999999];

const Y = '(\\d\\d\\d\\d)';
const MO = '(1[0-2]|0[1-9]|[1-9])';
const D = '(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])';
const H = '(2[0-3]|[0-1]\\d|\\d)';
const MI = '([0-5]\\d|\\d)';
const S = '(6[0-1]|[0-5]\\d|\\d)';
const FORMATS: Record<string, RegExp> = {
  '%Y-%m-%d': new RegExp(`^${Y}-${MO}-${D}`, 'i'),
  '%Y-%m-%d %H:%M:%S': new RegExp(`^${Y}-${MO}-${D}\\s+${H}:${MI}:${S}`, 'i'),
};

const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
export function daysInMonth(y: number, m: number): number {
  return [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

/** datetime.strptime(text, format) for the two formats above. */
export function strptime(text: unknown, format: keyof typeof FORMATS): DateTime {
  if (typeof text !== 'string') {
    const t =
      text === null ? 'NoneType' : typeof text === 'bigint' ? 'int' : typeof text === 'number' ? 'float' : typeof text === 'boolean' ? 'bool' : 'object';
    throw new PyException('TypeError', `strptime() argument 1 must be str, not ${t}`);
  }
  const m = FORMATS[format]!.exec(text);
  if (!m) throw new PyException('ValueError', `time data ${strRepr(text)} does not match format '${format}'`);
  if (m[0].length !== text.length) throw new PyException('ValueError', `unconverted data remains: ${text.slice(m[0].length)}`);
  const n = m.slice(1).map((x) => Number(x.trim()));
  const [y, mo, d] = n as [number, number, number];
  if (d > daysInMonth(y, mo)) throw new PyException('ValueError', 'day is out of range for month');
  const sec = n[5] ?? 0;
  if (sec > 59) throw new PyException('ValueError', 'second must be in 0..59');
  return [y, mo, d, n[3] ?? 0, n[4] ?? 0, sec, 0];
}

export function compareDateTime(a: DateTime, b: DateTime): number {
  for (let i = 0; i < 7; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** (y, m, d, H, M, S) + seconds, as '%Y-%m-%d %H:%M:%S' (wall-clock arithmetic, no time zone). */
export function formatPlusSeconds(base: [number, number, number, number, number, number], seconds: number): string {
  const t = Date.UTC(base[0], base[1] - 1, base[2], base[3], base[4], base[5]) + seconds * 1000;
  const d = new Date(t);
  const p = (x: number, w = 2) => String(x).padStart(w, '0');
  return `${p(d.getUTCFullYear(), 4)}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}
