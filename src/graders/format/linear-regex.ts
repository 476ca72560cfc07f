// Untrusted-input regular expressions on a linear-time engine. JavaScript's RegExp backtracks:
// `(a|a)*$`, `(a+){12}$`, `a*a*a*a*a*a*b` or `(.*?,){11}P` take seconds to centuries on short
// outputs, cannot be interrupted, and no load-time screen catches them all. So every pattern from a
// config runs on `re2js`, a pure-JavaScript port of RE2 (automata, time linear in the text), with
// RE2 syntax and semantics. Patterns are written as for JavaScript and translated where the two
// differ in meaning: `\s`/`\S` and `.` keep JavaScript's sets (Unicode spaces; `.` stops at \n,
// \r, U+2028, U+2029 unless the s flag is set), `\uXXXX`/`\u{X}`/`\cX`/`\0` become RE2 escapes,
// `[]`/`[^]` keep their meaning. What RE2 cannot do in linear time is refused at load time with a
// message saying so: backreferences (`\1`, `\k<name>`) and lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`).
import { RE2JS } from 're2js';

/** JavaScript's `\s`: the ECMAScript WhiteSpace and LineTerminator code points. */
const WS = String.raw`\t\n\x{0b}\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`;
/** Its complement, for `\S` inside a character class. */
const NOT_WS = String.raw`\x{0}-\x{8}\x{e}-\x{1f}\x{21}-\x{9f}\x{a1}-\x{167f}\x{1681}-\x{1fff}\x{200b}-\x{2027}\x{202a}-\x{202e}\x{2030}-\x{205e}\x{2060}-\x{2fff}\x{3001}-\x{fefe}\x{ff00}-\x{10ffff}`;
/** JavaScript's `.` without the s flag. */
const DOT = String.raw`[^\n\r\x{2028}\x{2029}]`;
const ANY = String.raw`\x{0}-\x{10ffff}`;

/** A refused or invalid pattern; `message` says why and what to do. */
export class RegexError extends Error {}

const NAMED = /\(\?<[A-Za-z_$][\w$]*>/y;

const hex = (s: string) => /^[0-9a-fA-F]+$/.test(s);

/**
 * Translates a JavaScript-syntax pattern into RE2 syntax with the same meaning, or throws
 * RegexError naming the construct RE2 cannot run (backreferences, lookaround).
 */
export function toRe2(pattern: string, flags: string): string {
  const dotAll = flags.includes('s');
  const unicode = flags.includes('u');
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined) throw new RegexError('the pattern ends with a lone backslash');
      i++;
      if (n >= '1' && n <= '9')
        throw new RegexError(`backreference "\\${n}" at ${i - 1}: not supported (patterns run on the linear-time RE2 engine, which has no backreferences)`);
      if (n === 'k' && pattern[i + 1] === '<')
        throw new RegexError(`named backreference "\\k<" at ${i - 1}: not supported (patterns run on the linear-time RE2 engine, which has no backreferences)`);
      if ('azACQE'.includes(n))
        throw new RegexError(`escape "\\${n}" at ${i - 1} means a plain "${n}" in JavaScript but something else in RE2: write "${n}" without the backslash`);
      if (n === 'x' && !/^[0-9a-fA-F]{2}$/.test(pattern.slice(i + 1, i + 3)))
        throw new RegexError(`invalid escape "\\x" at ${i - 1}: write \\xHH with two hex digits (or \\u{X} with the u flag)`);
      if (n === 's') out += inClass ? WS : `[${WS}]`;
      else if (n === 'S') out += inClass ? NOT_WS : `[^${WS}]`;
      else if (n === 'u') {
        const four = pattern.slice(i + 1, i + 5);
        const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(i + 1, i + 9));
        if (unicode && braced) {
          out += `\\x{${braced[1]}}`;
          i += braced[0].length;
        } else if (four.length === 4 && hex(four)) {
          out += `\\x{${four}}`;
          i += 4;
        } else throw new RegexError(`invalid escape "\\u" at ${i - 1}: write \\uXXXX (or \\u{X} with the u flag)`);
      } else if (n === 'c' && /[A-Za-z]/.test(pattern[i + 1] ?? '')) {
        out += `\\x{${(pattern.charCodeAt(i + 1) % 32).toString(16)}}`;
        i++;
      } else if (n === '0' && !/[0-9]/.test(pattern[i + 1] ?? '')) out += '\\x{0}';
      else if (n === 'b' && inClass)
        out += '\\x{8}'; // [\b] is a backspace in JavaScript
      else out += `\\${n}`;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      else if (c === '[') {
        out += '\\[';
        continue;
      }
      out += c;
      continue;
    }
    if (c === '[') {
      // JavaScript: [] matches nothing, [^] matches any character (RE2 reads "]" there as a member)
      if (pattern.startsWith('[]', i)) {
        out += `[^${ANY}]`;
        i += 1;
        continue;
      }
      if (pattern.startsWith('[^]', i)) {
        out += `[${ANY}]`;
        i += 2;
        continue;
      }
      inClass = true;
      out += c;
      if (pattern[i + 1] === '^') {
        out += '^';
        i++;
      }
      continue;
    }
    if (c === '(') {
      const look = /^\(\?(=|!|<=|<!)/.exec(pattern.slice(i, i + 4));
      if (look) {
        const what = look[1]!.startsWith('<') ? 'lookbehind' : 'lookahead';
        throw new RegexError(`${what} "(?${look[1]}" at ${i}: not supported (patterns run on the linear-time RE2 engine, which has no lookaround)`);
      }
      // nothing reads groups: non-capturing ones let the engine find matches without tracking them
      NAMED.lastIndex = i;
      const named = NAMED.exec(pattern);
      if (named) {
        out += '(?:';
        i += named[0].length - 1;
        continue;
      }
      if (pattern[i + 1] !== '?') {
        out += '(?:';
        continue;
      }
    }
    if (c === '.' && !dotAll) {
      out += DOT;
      continue;
    }
    out += c;
  }
  return out;
}

export interface LinearRegex {
  /** Index (UTF-16) of the first match, or -1. */
  search(text: string): number;
  /** The whole text matches. */
  full(text: string): boolean;
  /** Some part of the text matches. */
  test(text: string): boolean;
  /** Every non-overlapping match, left to right (UTF-16 offsets), at most `limit` of them. */
  spans(text: string, limit?: number): { start: number; end: number }[];
}

/**
 * Compiles a JavaScript-syntax pattern with flags from `imsu` for the RE2 engine. Throws RegexError
 * with a clear message when the pattern is invalid or uses what RE2 cannot run.
 */
export function compileLinear(pattern: string, flags = ''): LinearRegex {
  const bad = /[^imsu]/.exec(flags);
  if (bad) throw new RegexError(`flag "${bad[0]}" is not supported (use i, m, s, u)`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(
      toRe2(pattern, flags),
      (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | (flags.includes('m') ? RE2JS.MULTILINE : 0) | (flags.includes('s') ? RE2JS.DOTALL : 0),
    );
  } catch (e) {
    if (e instanceof RegexError) throw e;
    // RE2 quotes the offending piece of the translated pattern: keep it only if the user wrote it
    let msg = (e as Error).message.replace(/^error parsing regexp: /, '');
    const quoted = /: `([\s\S]*)`$/.exec(msg);
    if (quoted && !pattern.includes(quoted[1]!)) msg = msg.slice(0, quoted.index);
    throw new RegexError(`invalid regular expression (RE2 syntax): ${msg}`);
  }
  return {
    search: (text) => {
      // the DFA answers "no match" fastest; only a match pays for locating it
      if (!re.test(text)) return -1;
      const m = re.matcher(text);
      return m.find() ? m.start() : -1;
    },
    full: (text) => re.matches(text),
    test: (text) => re.test(text),
    spans: (text, limit = 100_000) => {
      const out: { start: number; end: number }[] = [];
      if (!re.test(text)) return out;
      const m = re.matcher(text);
      let from = 0;
      while (out.length < limit && from <= text.length && m.find(from)) {
        const start = m.start();
        const end = m.end();
        out.push({ start, end });
        from = end > start ? end : end + 1; // an empty match: step past it so the scan advances
      }
      return out;
    },
  };
}
