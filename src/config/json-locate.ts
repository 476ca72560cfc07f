// Positions in a JSON text: the offset of the first syntax error (V8's JSON.parse messages only
// sometimes include one), and where each field path's key and value start, so that config errors
// say file:line:column for field problems as well as for syntax errors.
import { joinPath } from '../core/errors.js';

/** Where a field sits: its key (absent for array elements and the root) and its value. */
export interface FieldOffsets {
  key?: number;
  value: number;
}

type Visit = (path: string, at: FieldOffsets) => void;

/** Scans one JSON text; returns the offset of the first syntax error, or -1 when the text is valid. */
function scan(text: string, visit?: Visit): number {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  class Fail extends Error {}
  const fail = (): never => {
    throw new Fail();
  };
  const str = (): number => {
    const start = ++i; // after the opening quote
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return start;
      }
      if (c < 32) fail();
      if (c === 92) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail();
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else {
          i++;
          fail();
        }
      } else i++;
    }
    return fail();
  };
  const num = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '-') fail();
    i += m![0].length;
  };
  const lit = (w: string) => {
    for (let k = 0; k < w.length; k++, i++) if (text[i] !== w[k]) fail();
  };
  const value = (depth: number, path: string, key: number | undefined): void => {
    if (depth > 10_000) fail();
    ws();
    visit?.(path, key === undefined ? { value: i } : { key, value: i });
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const keyAt = i;
        const from = str();
        const to = i - 1; // the closing quote
        ws();
        if (text[i] !== ':') fail();
        i++;
        value(depth + 1, visit ? joinPath(path, keyText(text, from, to)) : path, keyAt);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail();
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let k = 0; ; k++) {
        value(depth + 1, visit ? joinPath(path, k) : path, undefined);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail();
      }
    } else if (c === '"') str();
    else if (c === 't') lit('true');
    else if (c === 'f') lit('false');
    else if (c === 'n') lit('null');
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) num();
    else fail();
  };
  try {
    value(0, '', undefined);
    ws();
    return i < n ? i : -1;
  } catch (e) {
    if (e instanceof Fail || e instanceof RangeError) return Math.min(i, n);
    throw e;
  }
}

/** The decoded text of a key whose contents lie between `from` and its closing quote at `to`. */
function keyText(text: string, from: number, to: number): string {
  return JSON.parse(`"${text.slice(from, to)}"`) as string;
}

/** Returns the offset of the first JSON syntax error, or -1 when the text is valid. */
export function jsonErrorOffset(text: string): number {
  return scan(text);
}

/** Where every field path of a valid JSON text starts (paths written as config issues write them: `a.b[0].c`). */
export function jsonFieldOffsets(text: string): Map<string, FieldOffsets> {
  const out = new Map<string, FieldOffsets>();
  scan(text, (path, at) => {
    if (!out.has(path)) out.set(path, at);
  });
  return out;
}
