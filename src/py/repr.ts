// Python's repr() of the scalar literals: float (shortest round-trip digits), str (quote choice,
// escapes, str.isprintable) and bytes. Used by the runtime's repr, str and json.dumps (format.ts)
// and by the extraction layer's ast.unparse (src/extract/python-call.ts), so both print a value
// exactly the same way.

/** repr(float): the shortest round-trip digits, fixed notation for exponents in [-4, 16). */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let body: string;
  if (exp >= -4 && exp < 16) {
    if (exp < 0) body = `0.${'0'.repeat(-exp - 1)}${digits}`;
    else if (digits.length <= exp + 1) body = `${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
    else body = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    body = `${m}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  return neg ? `-${body}` : body;
}

const PRINTABLE_CACHE = new Map<number, boolean>();
/** str.isprintable() for one code point: everything but categories C* and Z* (except the space). */
function isPrintable(cp: number): boolean {
  if (cp === 0x20) return true;
  if (cp < 0x7f) return cp > 0x20;
  let r = PRINTABLE_CACHE.get(cp);
  if (r === undefined) {
    r = !/[\p{C}\p{Z}]/u.test(String.fromCodePoint(cp));
    if (PRINTABLE_CACHE.size < 4096) PRINTABLE_CACHE.set(cp, r);
  }
  return r;
}

const hex = (n: number, w: number): string => n.toString(16).padStart(w, '0');

/** repr(str). */
export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c >= 0x7f || c === 0x5c || c === quote.charCodeAt(0)) {
      plain = false;
      break;
    }
  }
  if (plain) return quote + s + quote;
  let out = quote;
  for (let i = 0; i < s.length; i++) {
    let cp = s.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    const ch = String.fromCodePoint(cp);
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (isPrintable(cp)) out += ch;
    else if (cp < 0x100) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

/** repr(bytes). */
export function bytesRepr(b: Uint8Array): string {
  const quote = b.includes(0x27) && !b.includes(0x22) ? '"' : "'";
  let out = `b${quote}`;
  for (const c of b) {
    const ch = String.fromCharCode(c);
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (c === 9) out += '\\t';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c < 0x20 || c >= 0x7f) out += `\\x${hex(c, 2)}`;
    else out += ch;
  }
  return out + quote;
}
