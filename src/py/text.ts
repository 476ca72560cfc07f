// Python str methods the simulated APIs use, where Python differs from JS: splitlines() and split()
// (Python's line and whitespace sets), strip()/rstrip() with a character set, and calling a str
// method on a value that is not a str (AttributeError, as Python raises it).
import { PyException } from './errors.js';
import { compareCodePoints, type PyValue, typeName } from './values.js';

/** Python's str.isspace() characters. */
export const PY_SPACE_CLASS = '\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const SPLIT_RE = new RegExp(`[${PY_SPACE_CLASS}]+`);
/** Python's str.splitlines() boundaries. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: \x1c-\x1e (file, group, record separators) are line boundaries in Python's str.splitlines(), matched on purpose
const LINE_RE = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
export const TRIM_RE = new RegExp(`^[${PY_SPACE_CLASS}]+|[${PY_SPACE_CLASS}]+$`, 'g');

/** `v.<method>` on a value that must be a str. */
export function needStr(v: PyValue, method: string): string {
  if (typeof v !== 'string') throw new PyException('AttributeError', `'${typeName(v)}' object has no attribute '${method}'`);
  return v;
}

/** str.splitlines(). */
export function splitlines(s: string): string[] {
  if (s === '') return [];
  const parts = s.split(LINE_RE);
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** str.split() with no separator. */
export function splitWhitespace(s: string): string[] {
  return s.split(SPLIT_RE).filter((x) => x !== '');
}

function charSet(chars: string): Set<string> {
  return new Set([...chars]);
}

/** str.rstrip(chars). */
export function rstrip(s: string, chars: string): string {
  const set = charSet(chars);
  const cps = [...s];
  let end = cps.length;
  while (end > 0 && set.has(cps[end - 1]!)) end--;
  return cps.slice(0, end).join('');
}

/** str.strip(chars). */
export function strip(s: string, chars: string): string {
  const set = charSet(chars);
  const cps = [...s];
  let start = 0;
  let end = cps.length;
  while (start < end && set.has(cps[start]!)) start++;
  while (end > start && set.has(cps[end - 1]!)) end--;
  return cps.slice(start, end).join('');
}

/** sorted() of a list of str (code point order, stable). */
export function sortedStrings(items: string[]): string[] {
  return [...items].sort(compareCodePoints);
}

/** str.zfill(width). */
export function zfill(s: string, width: number): string {
  const n = [...s].length;
  if (n >= width) return s;
  const sign = s[0] === '+' || s[0] === '-' ? s[0] : '';
  return sign + '0'.repeat(width - n) + s.slice(sign.length);
}

/** `template.format(**args)` for plain `{name}` fields and `{{`/`}}` escapes. */
export function formatNamed(template: string, args: Readonly<Record<string, string>>): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '{') {
      if (template[i + 1] === '{') {
        out += '{';
        i++;
        continue;
      }
      const end = template.indexOf('}', i);
      if (end < 0) throw new PyException('ValueError', "expected '}' before end of string");
      const field = template.slice(i + 1, end);
      if (!/^[A-Za-z_]\w*$/.test(field)) throw new PyException('ValueError', `format field {${field}} is not evaluated`);
      if (!Object.hasOwn(args, field)) throw PyException.keyError(field);
      out += args[field];
      i = end;
    } else if (c === '}') {
      if (template[i + 1] !== '}') throw new PyException('ValueError', "Single '}' encountered in format string");
      out += '}';
      i++;
    } else out += c;
  }
  return out;
}

/** Characters str.isdigit() accepts beyond decimal digits (Numeric_Type=Digit: superscripts, circled digits, …). */
const OTHER_DIGITS =
  /[\u00b2\u00b3\u00b9\u1369-\u1371\u19da\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c\u2488-\u2490\u24ea\u24f5-\u24fd\u24ff\u2776-\u277e\u2780-\u2788\u278a-\u2792\u{10a40}-\u{10a43}\u{1f100}-\u{1f10a}]/u;
const DECIMAL = /^\p{Nd}$/u;

/** str.isdigit(). */
export function pyIsDigit(s: string): boolean {
  if (s === '') return false;
  for (const c of s) if (!DECIMAL.test(c) && !OTHER_DIGITS.test(c)) return false;
  return true;
}

function decimalValue(c: string): number | undefined {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (!DECIMAL.test(c)) return undefined;
  // Nd characters come in runs of ten, 0 to 9
  const cp = c.codePointAt(0)!;
  let start = cp;
  while (start > 0 && DECIMAL.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** int(s) for a string of digits (str.isdigit() true): decimal digits in any script, ValueError otherwise. */
export function pyIntDigits(s: string): bigint {
  let n = 0n;
  for (const c of s) {
    const d = decimalValue(c);
    if (d === undefined) throw new PyException('ValueError', `invalid literal for int() with base 10: '${s}'`);
    n = n * 10n + BigInt(d);
  }
  return n;
}
