// Tokenizer for LaTeX and plain-text math answers. Folds LaTeX spelling variants into one token
// set (\dfrac -> frac, \le -> <=, \cdot -> *), joins thousands separators outside brackets,
// turns \text{...} into words (units, names) or inline math, and drops layout commands.
import type { Budget } from './limits.js';

export type Tok =
  | { t: 'num'; s: string }
  | { t: 'id'; s: string }
  | { t: 'word'; s: string }
  | { t: 'fn'; s: string }
  | { t: 'cmd'; s: string; env?: string }
  | { t: 'const'; s: 'pi' | 'inf' | 'reals' }
  | { t: 'op'; s: string };

export class ParseError extends Error {}

/**
 * Inverse hyperbolic functions in their usual spellings: `ar…` (area, the ISO 80000-2 name),
 * `arc…` (common in textbooks) and `a…` (programming languages), for each of the six functions
 * (sinh cosh tanh coth sech csch), folded to `asinh`, `acosh`, …; the power −1 spelling (`\\sinh^{-1}`) is the parser's (`parseFunction`).
 */
export const INVERSE_HYPERBOLIC: Record<string, string> = Object.fromEntries(
  ['sinh', 'cosh', 'tanh', 'coth', 'sech', 'csch'].flatMap((f) => ['ar', 'arc', 'a'].map((p) => [p + f, 'a' + f])),
);
const INVERSE_HYPERBOLIC_NAMES = Object.keys(INVERSE_HYPERBOLIC);

const FUNCTIONS = new Set([
  'sin',
  'cos',
  'tan',
  'sec',
  'csc',
  'cot',
  'arcsin',
  'arccos',
  'arctan',
  'asin',
  'acos',
  'atan',
  'sinh',
  'cosh',
  'tanh',
  'coth',
  'sech',
  'csch',
  ...INVERSE_HYPERBOLIC_NAMES,
  'ln',
  'log',
  'exp',
  'sqrt',
  'abs',
  'floor',
  'ceil',
  'gcd',
  'lcm',
  'max',
  'min',
]);
const GREEK = new Set([
  'alpha',
  'beta',
  'gamma',
  'delta',
  'epsilon',
  'varepsilon',
  'zeta',
  'eta',
  'theta',
  'vartheta',
  'iota',
  'kappa',
  'lambda',
  'mu',
  'nu',
  'xi',
  'rho',
  'sigma',
  'tau',
  'upsilon',
  'phi',
  'varphi',
  'chi',
  'psi',
  'omega',
  'Gamma',
  'Delta',
  'Theta',
  'Lambda',
  'Xi',
  'Sigma',
  'Phi',
  'Psi',
  'Omega',
]);
/** Two-letter runs that are units, not a product of two variables. */
const SHORT_UNITS = new Set(['cm', 'mm', 'km', 'kg', 'mg', 'ml', 'mL', 'ft', 'in', 'yd', 'mi', 'lb', 'oz', 'hr', 'hrs', 'pm', 'am', 'sq', 'cu']);
/** Commands that are pure layout and vanish. */
const SKIP = new Set([
  'left',
  'right',
  'big',
  'Big',
  'bigg',
  'Bigg',
  'bigl',
  'bigr',
  'Bigl',
  'Bigr',
  'biggl',
  'biggr',
  'Biggl',
  'Biggr',
  'displaystyle',
  'textstyle',
  'limits',
  'nolimits',
  ',',
  ';',
  ':',
  '!',
  ' ',
  'quad',
  'qquad',
  'enspace',
  'thinspace',
  '$',
  'mathbb',
  'mathcal',
  'vec',
  'overline',
  'hat',
  'bar',
  'widehat',
  'tilde',
  'boldsymbol',
  'mathit',
  'rm',
  'bf',
  'it',
  'ensuremath',
  'cr',
  'centering',
  'hfill',
  'phantom',
]);
/** Sizing prefixes of a delimiter (`\left(`, `\mleft(`, `\bigl[`, `\middle|`): dropped with a null delimiter `.` after them. */
const DELIMITER_SIZES = new Set([
  'left',
  'right',
  'mleft',
  'mright',
  'middle',
  'bigl',
  'bigr',
  'Bigl',
  'Bigr',
  'biggl',
  'biggr',
  'Biggl',
  'Biggr',
  'bigm',
  'Bigm',
]);
/** Upright-font wrappers that may spell an operator name (`\mathrm{lcm}(4, 6)`). */
const UPRIGHT_NAMES = new Set(['mathrm', 'text', 'textrm', 'mathit', 'textnormal']);
const TEXT_CMDS = new Set(['text', 'textbf', 'textrm', 'textit', 'texttt', 'mbox', 'hbox', 'mathrm', 'mathbf', 'mathsf', 'operatorname', 'textnormal', 'emph']);
const OPS: Record<string, string> = {
  cdot: '*',
  times: '*',
  ast: '*',
  div: '/',
  pm: '±',
  mp: '∓',
  le: '<=',
  leq: '<=',
  leqslant: '<=',
  ge: '>=',
  geq: '>=',
  geqslant: '>=',
  ne: '!=',
  neq: '!=',
  lt: '<',
  gt: '>',
  approx: '≈',
  simeq: '≈',
  thickapprox: '≈',
  equiv: '=',
  cup: '∪',
  cap: '∩',
  in: 'in',
  bmod: 'mod',
  mod: 'mod',
  bigcup: '∪',
  bigcap: '∩',
  circ: '°',
  degree: '°',
  '%': '%',
  '{': '\\{',
  '}': '\\}',
  lbrace: '\\{',
  rbrace: '\\}',
  langle: '(',
  rangle: ')',
  emptyset: '∅',
  varnothing: '∅',
  mid: '|',
  vert: '|',
  lvert: '|',
  rvert: '|',
  '|': '|',
  colon: ':',
  setminus: '\\',
  to: '→',
  rightarrow: '→',
  Rightarrow: '→',
  implies: '→',
  dots: '…',
  ldots: '…',
  cdots: '…',
  land: ',',
  lor: ',',
  wedge: ',',
  vee: ',',
  '&': '&',
  '#': '#',
  _: '_',
  choose: 'choose',
};
const CHAR_OPS: Record<string, string> = {
  '−': '-',
  '–': '-',
  '×': '*',
  '·': '*',
  '÷': '/',
  '≤': '<=',
  '≥': '>=',
  '≠': '!=',
  '±': '±',
  '∓': '∓',
  '°': '°',
  '∪': '∪',
  '∩': '∩',
  '∈': 'in',
  '≈': '≈',
  '∅': '∅',
  '…': '…',
  '：': ':',
};
/** Superscript digits (m², x³) as powers. */
const SUPERSCRIPTS: Record<string, string> = { '²': '2', '³': '3', '¹': '1', '⁰': '0', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9' };
/** Currency signs, dropped like `\$`. */
const CURRENCY = new Set(['€', '£', '¥', '₹', '₽', '₩', '¢', '₪', '₫', '฿', '₺', '₴', '₦']);
/** Known command names, for splitting run-together commands such as `\quadx` (= `\quad x`). */
let KNOWN: string[] | undefined;
function knownPrefix(name: string): string | undefined {
  KNOWN ??= [
    ...FUNCTIONS,
    ...GREEK,
    ...SKIP,
    ...TEXT_CMDS,
    ...Object.keys(OPS),
    'frac',
    'dfrac',
    'tfrac',
    'cfrac',
    'sqrt',
    'binom',
    'pi',
    'infty',
    'sum',
    'prod',
    'int',
    'lim',
    'pmod',
  ]
    .filter((k) => /^[A-Za-z]{2,}$/.test(k))
    .sort((a, b) => b.length - a.length);
  return KNOWN.find((k) => name.startsWith(k) && name.length > k.length);
}
/** Functions that `\operatorname{...}` may name. */
const OPERATOR_NAMES = new Set([
  'gcd',
  'lcm',
  'max',
  'min',
  'sin',
  'cos',
  'tan',
  'sec',
  'csc',
  'cot',
  'ln',
  'log',
  'exp',
  'abs',
  'floor',
  'ceil',
  'sinh',
  'cosh',
  'tanh',
  'coth',
  'sech',
  'csch',
  'arcsin',
  'arccos',
  'arctan',
  ...INVERSE_HYPERBOLIC_NAMES,
  'sgn',
  'lcd',
  'lg',
]);

const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';
const isLetter = (ch: string | undefined) => ch !== undefined && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'));

/** Joins thousands separators that LaTeX spells out: `10,\!080`, `1{,}000`, `1\,000`, and a bare `1 000 000`. */
export function joinThousands(s: string): string {
  if (s.includes('\\') || s.includes('{,')) s = s.replace(/(\d)(?:,\\!\s*|\s?\{\s?,\s?\}|\\,|\\ |\\;|\\!|,\\ )(?=\d{3}(?!\d))/g, '$1');
  if (/^\s*-?\d{1,3}(?: \d{3})+(?:\.\d+)?\s*$/.test(s)) s = s.replace(/ /g, '');
  return s;
}

/** Reads a balanced `{...}` group starting at s[i] === '{'; returns [content, index after]. */
export function readGroup(s: string, i: number): [string, number] {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const ch = s[j];
    if (ch === '\\') {
      j++;
      continue;
    }
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return [s.slice(i + 1, j), j + 1];
  }
  throw new ParseError('unbalanced braces');
}

const DOUBLED_CMD =
  /\\\\(?:frac|dfrac|tfrac|sqrt|left|right|pi|cdot|times|le|leq|ge|geq|lt|gt|neq|infty|text|boxed|begin|end|mathbf|mathrm|quad|in|cup|cap|pm|approx|sin|cos|tan|log|ln)(?![A-Za-z])/;

/**
 * Undoes double escaping (two backslashes before frac, as in text that went through JSON
 * twice): when a doubled backslash stands before a known command and no single one does, every
 * run of backslashes is halved (so an escaped row break of four becomes the usual two).
 */
export function undoubleEscape(s: string): string {
  if (!s.includes('\\\\') || !DOUBLED_CMD.test(s)) return s;
  for (const m of s.matchAll(/\\+(?=[A-Za-z])/g)) if (m[0].length % 2 === 1) return s;
  return s.replace(/\\+/g, (run) => '\\'.repeat(Math.ceil(run.length / 2)));
}

export function tokenize(src: string, budget: Budget): Tok[] {
  const out: Tok[] = [];
  lex(joinThousands(undoubleEscape(src)), out, budget, 0);
  return out;
}

function lex(s: string, out: Tok[], budget: Budget, nest: number): void {
  if (nest > 8) throw new ParseError('text nesting too deep');
  let depth = 0; // bracket depth, for telling thousands separators from tuple commas
  let i = 0;
  const n = s.length;
  while (i < n) {
    budget.tick();
    const ch = s[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '~' || ch === '$') {
      i++;
      continue;
    }
    if (isDigit(ch) || (ch === '.' && isDigit(s[i + 1]))) {
      let j = i;
      while (isDigit(s[j])) j++;
      let text = s.slice(i, j);
      // 1,000,000 outside brackets: groups of exactly three digits, no space after the comma
      if (depth === 0 && j - i <= 3 && s[i] !== '0' && s[j] === ',' && isDigit(s[j + 1]) && isDigit(s[j + 2]) && isDigit(s[j + 3]) && !isDigit(s[j + 4])) {
        while (s[j] === ',' && isDigit(s[j + 1]) && isDigit(s[j + 2]) && isDigit(s[j + 3]) && !isDigit(s[j + 4])) {
          text += s.slice(j + 1, j + 4);
          j += 4;
        }
      }
      let point = false;
      if (s[j] === '.' && isDigit(s[j + 1])) {
        let k = j + 1;
        while (isDigit(s[k])) k++;
        text += s.slice(j, k);
        j = k;
        point = true;
      } else if (s[j] === '.' && !isDigit(s[j + 1]) && text.length > 0 && !isLetter(s[j + 1]) && s[j + 1] !== '.') {
        j++; // "5." as in a trailing decimal point
        text += '.';
        point = true;
      }
      // repeating decimal: 0.\overline{3}, 0.5\overline{5}
      const rep = point ? /^\\(?:overline|bar|dot)\s*\{(\d{1,50})\}/.exec(s.slice(j, j + 64)) : null;
      if (rep) {
        out.push({ t: 'num', s: `${text}(${rep[1]})` });
        i = j + rep[0].length;
        continue;
      }
      if ((s[j] === 'e' || s[j] === 'E') && (isDigit(s[j + 1]) || ((s[j + 1] === '-' || s[j + 1] === '+') && isDigit(s[j + 2])))) {
        let k = j + 2;
        while (isDigit(s[k])) k++;
        text += s.slice(j, k);
        j = k;
      }
      out.push({ t: 'num', s: text });
      i = j;
      continue;
    }
    if (isLetter(ch)) {
      let j = i;
      while (isLetter(s[j])) j++;
      pushWord(s.slice(i, j), out);
      i = j;
      continue;
    }
    if (ch === '\\') {
      const nx = s[i + 1];
      if (nx === undefined) throw new ParseError('trailing backslash');
      if (nx === '\\') {
        out.push({ t: 'op', s: '\\\\' });
        i += 2;
        continue;
      }
      if (!isLetter(nx)) {
        i += 2;
        if (SKIP.has(nx)) continue;
        if (nx === '$') continue;
        const op = OPS[nx];
        if (op === undefined) throw new ParseError(`unknown command \\${nx}`);
        if (op === '\\{') depth++;
        else if (op === '\\}') depth--;
        out.push({ t: 'op', s: op });
        continue;
      }
      let j = i + 1;
      while (isLetter(s[j])) j++;
      let name = s.slice(i + 1, j);
      const pre = isKnownCommand(name) ? undefined : knownPrefix(name);
      if (pre) {
        name = pre;
        j = i + 1 + pre.length;
      }
      i = j;
      if (name === 'operatorname' || UPRIGHT_NAMES.has(name)) {
        // \operatorname{lcm} is a function by definition; \mathrm{lcm}, \text{gcd} only when an argument follows
        // (`5\mathrm{min}` is minutes)
        while (s[i] === ' ') i++;
        if (s[i] === '{') {
          const [content, after] = readGroup(s, i);
          const fn = content.trim().replace(/\*$/, '');
          if (OPERATOR_NAMES.has(fn) && (name === 'operatorname' || /^\s*[({^_\\\dA-Za-z]/.test(s.slice(after, after + 2)))) {
            i = after;
            out.push({ t: 'fn', s: fn === 'lcd' ? 'lcm' : fn === 'lg' ? 'log' : fn });
            continue;
          }
        }
      }
      if (name === 'mathbb' || name === 'Bbb') {
        while (s[i] === ' ') i++;
        let letter = s[i];
        let after = i + 1;
        if (letter === '{') [letter, after] = readGroup(s, i);
        i = after;
        if (letter?.trim() === 'R') out.push({ t: 'const', s: 'reals' });
        else out.push({ t: 'word', s: `\\mathbb{${letter?.trim() ?? ''}}` });
        continue;
      }
      if (name === 'pmod') {
        // "\\pmod{7}": the modulus of a congruence, an annotation like a unit
        while (s[i] === ' ') i++;
        let mod = s[i] ?? '';
        let after = i + 1;
        if (mod === '{') [mod, after] = readGroup(s, i);
        i = after;
        out.push({ t: 'word', s: `(mod ${mod.trim()})` });
        continue;
      }
      if (name === 'sum' || name === 'prod' || name === 'int' || name === 'lim') {
        out.push({ t: 'cmd', s: name });
        continue;
      }
      if (name === 'hspace' || name === 'vspace' || name === 'hphantom' || name === 'vphantom') {
        // spacing of a given size: layout, its argument dropped with it
        while (s[i] === ' ') i++;
        if (s[i] === '*') i++;
        if (s[i] === '{') i = readGroup(s, i)[1];
        continue;
      }
      if (DELIMITER_SIZES.has(name)) {
        while (s[i] === ' ') i++;
        if (s[i] === '.') i++;
        continue;
      }
      if (SKIP.has(name)) continue;
      if (TEXT_CMDS.has(name)) {
        while (s[i] === ' ') i++;
        if (s[i] !== '{') continue;
        const [content, after] = readGroup(s, i);
        i = after;
        lexText(content, out, budget, nest);
        continue;
      }
      if (name === 'frac' || name === 'dfrac' || name === 'tfrac' || name === 'cfrac') out.push({ t: 'cmd', s: 'frac' });
      else if (name === 'sqrt') out.push({ t: 'cmd', s: 'sqrt' });
      else if (name === 'binom' || name === 'dbinom' || name === 'tbinom') out.push({ t: 'cmd', s: 'binom' });
      else if (name === 'begin' || name === 'end') {
        while (s[i] === ' ') i++;
        if (s[i] !== '{') throw new ParseError(`\\${name} without an environment`);
        const [env, after] = readGroup(s, i);
        i = after;
        if (name === 'begin' && (env === 'array' || env === 'tabular') && s[i] === '{') i = readGroup(s, i)[1];
        out.push({ t: 'cmd', s: name, env });
      } else if (name === 'pi') out.push({ t: 'const', s: 'pi' });
      else if (name === 'infty' || name === 'infin' || name === 'infinity') out.push({ t: 'const', s: 'inf' });
      else if (name === 'lfloor' || name === 'lceil') {
        out.push({ t: 'fn', s: name === 'lfloor' ? 'floor' : 'ceil' }, { t: 'op', s: '(' });
        depth++;
      } else if (name === 'rfloor' || name === 'rceil') {
        out.push({ t: 'op', s: ')' });
        depth--;
      } else if (name === 'lg')
        out.push({ t: 'fn', s: 'log' }); // ISO 80000-2: lg is the base-10 logarithm
      else if (FUNCTIONS.has(name) || name === 'arcsec' || name === 'arccsc' || name === 'arccot') out.push({ t: 'fn', s: name });
      else if (GREEK.has(name)) out.push({ t: 'id', s: name });
      else if (OPS[name] !== undefined) {
        const op = OPS[name]!;
        if (op === '\\{') depth++;
        else if (op === '\\}') depth--;
        out.push({ t: 'op', s: op });
      } else if (name === 'boxed' || name === 'fbox') continue;
      else if (name === 'dollar' || name === 'dollars') continue;
      else out.push({ t: 'word', s: '\\' + name });
      continue;
    }
    const cop = CHAR_OPS[ch];
    if (cop !== undefined) {
      out.push({ t: 'op', s: cop });
      i++;
      continue;
    }
    if (ch === 'π') {
      out.push({ t: 'const', s: 'pi' });
      i++;
      continue;
    }
    if (ch === '∞') {
      out.push({ t: 'const', s: 'inf' });
      i++;
      continue;
    }
    if (ch === '√') {
      out.push({ t: 'cmd', s: 'sqrt' });
      i++;
      continue;
    }
    if (ch === 'ℝ') {
      out.push({ t: 'const', s: 'reals' });
      i++;
      continue;
    }
    const sup = SUPERSCRIPTS[ch];
    if (sup !== undefined) {
      out.push({ t: 'op', s: '^' }, { t: 'num', s: sup });
      i++;
      continue;
    }
    if (CURRENCY.has(ch)) {
      i++;
      continue;
    }
    if (/\p{L}/u.test(ch)) {
      // letters of other scripts (页, 個, м): unit or label words
      let j = i + 1;
      while (j < n && /\p{L}/u.test(s[j]!)) j++;
      out.push({ t: 'word', s: s.slice(i, j) });
      i = j;
      continue;
    }
    if (ch === '<' || ch === '>' || ch === '!' || ch === '=') {
      if (s[i + 1] === '=' && ch !== '=') {
        out.push({ t: 'op', s: ch + '=' });
        i += 2;
        continue;
      }
      if (ch === '=' && s[i + 1] === '=') {
        out.push({ t: 'op', s: '=' });
        i += 2;
        continue;
      }
      out.push({ t: 'op', s: ch });
      i++;
      continue;
    }
    if (ch === '*' && s[i + 1] === '*') {
      out.push({ t: 'op', s: '^' });
      i += 2;
      continue;
    }
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    if ("+-*/^_()[]{},;|%&:'".includes(ch)) {
      out.push({ t: 'op', s: ch });
      i++;
      continue;
    }
    throw new ParseError(`unexpected character ${JSON.stringify(ch)}`);
  }
}

const KNOWN_WORDS = new Set([
  ...DELIMITER_SIZES,
  'frac',
  'dfrac',
  'tfrac',
  'cfrac',
  'sqrt',
  'binom',
  'dbinom',
  'tbinom',
  'begin',
  'end',
  'pi',
  'infty',
  'infin',
  'infinity',
  'lfloor',
  'lceil',
  'rfloor',
  'rceil',
  'arcsec',
  'arccsc',
  'arccot',
  'lg',
  'hspace',
  'vspace',
  'hphantom',
  'vphantom',
  'boxed',
  'fbox',
  'dollar',
  'dollars',
  'mathbb',
  'Bbb',
  'pmod',
  'sum',
  'prod',
  'int',
  'lim',
]);
let ALL_KNOWN: Set<string> | undefined;
function isKnownCommand(name: string): boolean {
  ALL_KNOWN ??= new Set([...KNOWN_WORDS, ...SKIP, ...TEXT_CMDS, ...FUNCTIONS, ...GREEK, ...Object.keys(OPS)]);
  return ALL_KNOWN.has(name);
}

function pushWord(w: string, out: Tok[]): void {
  // "1orW(x)": a connective run together with the next name (text whose spaces were lost)
  const glued = /^(or|and)([A-Z][A-Za-z]*)$/.exec(w);
  if (glued) {
    out.push({ t: 'op', s: ',' });
    pushWord(glued[2]!, out);
    return;
  }
  if (FUNCTIONS.has(w)) out.push({ t: 'fn', s: w });
  else if (w === 'pi') out.push({ t: 'const', s: 'pi' });
  else if (w === 'inf' || w === 'infty' || w === 'infinity' || w === 'Infinity') out.push({ t: 'const', s: 'inf' });
  else if (w === 'and' || w === 'or') out.push({ t: 'op', s: ',' });
  else if (w === 'in') out.push({ t: 'op', s: 'in' });
  else if (w.length === 1) out.push({ t: 'id', s: w });
  else if (GREEK.has(w)) out.push({ t: 'id', s: w });
  else if (w.length === 2 && !SHORT_UNITS.has(w)) for (const ch of w) out.push({ t: 'id', s: ch });
  else out.push({ t: 'word', s: w });
}

/** `\text{...}`: inline math when it holds math, words (units, names, "and") otherwise. */
function lexText(content: string, out: Tok[], budget: Budget, nest: number): void {
  const trimmed = content.trim();
  if (trimmed === '') return;
  if (/^(and|or|,)$/i.test(trimmed)) {
    out.push({ t: 'op', s: ',' });
    return;
  }
  // words, or a lone letter set off by a space (`\text{ m}`), are units or names; `\text{(C)}`, `\text{x}` stay math
  // compound units without a word: `\text{m/s}`, `\text{km/h}`, `\text{m/s^2}`
  const compound = /^[A-Za-z]+(?:\s*\/\s*[A-Za-z]+(?:\^\d)?)+$/.test(trimmed);
  if (compound || (/[A-Za-z]{2,}/.test(trimmed) && !/^\(?[A-Za-z]\)?$/.test(trimmed)) || /^\s+[A-Za-z]$/.test(content)) {
    if (compound) {
      out.push({ t: 'word', s: trimmed.replace(/\s+/g, '') });
      return;
    }
    for (const w of trimmed.split(/[^A-Za-z0-9.]+/)) {
      if (!w) continue;
      if (/^(and|or)$/i.test(w)) out.push({ t: 'op', s: ',' });
      else out.push({ t: 'word', s: w });
    }
    return;
  }
  lex(joinThousands(content), out, budget, nest + 1);
}
