// The `calculate` tool's arithmetic: Python 3.11's eval() of an expression over the characters
// "0123456789+-*/(). " (ints of any size, floats, + - * / // **, unary signs, parentheses, the empty
// tuple, Ellipsis, calls), then str(round(float(result), 2)); every error is the message CPython
// gives (SyntaxError texts with "(<string>, line 1)", ZeroDivisionError, OverflowError, TypeError).
// Integer products and powers whose result would pass MAX_POW_BITS are refused with the
// OverflowError float() would raise on them, instead of computing for minutes as Python would.
import { bitLength, ldexp } from '../../py/double.js';
import { floatRepr, roundFloat } from '../../py/format.js';
import { PyError } from '../../py/ops.js';
import { intToFloat, intTrueDiv } from '../../py/num.js';

/** Largest integer product or power computed exactly, in bits (about 1.3 million decimal digits). */
export const MAX_POW_BITS = 1 << 22;
/** CPython 3.11: deepest expression the compiler accepts, and most nested parentheses. */
const MAX_AST_DEPTH = 2999;
const MAX_PAREN_LEVEL = 200;
const MAX_INT_DIGITS = 4300;

type Tok = { k: 'num'; text: string; pos: number } | { k: 'op'; v: string; pos: number } | { k: 'end'; pos: number };

type Node =
  | { t: 'int'; v: bigint }
  | { t: 'float'; v: number }
  | { t: 'tuple' }
  | { t: 'ellipsis' }
  | { t: 'unary'; op: '+' | '-'; x: Node }
  | { t: 'bin'; op: string; a: Node; b: Node }
  | { t: 'call'; f: Node; args: { star: '' | '*' | '**'; x: Node }[] }
  | { t: 'starred' };

type Val = { t: 'int'; v: bigint } | { t: 'float'; v: number } | { t: 'tuple' } | { t: 'ellipsis' } | { t: 'complex' };

const syntax = (msg: string) => new PyError('SyntaxError', `${msg} (<string>, line 1)`);
const INVALID = 'invalid syntax';

/** Tokens of the whole expression, or the first tokenizer error (Python reports those first). */
function tokenize(src: string): Tok[] | PyError {
  const toks: Tok[] = [];
  let level = 0;
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ') {
      i++;
      continue;
    }
    const digit = c >= '0' && c <= '9';
    if (digit || (c === '.' && src[i + 1] !== undefined && src[i + 1]! >= '0' && src[i + 1]! <= '9')) {
      const m = /^\d*(\.\d*)?/.exec(src.slice(i))!;
      const text = m[0];
      if (m[1] === undefined) {
        if (text.length > 1 && text[0] === '0' && /[1-9]/.test(text))
          return syntax('leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers');
        if (text.length > MAX_INT_DIGITS) {
          return syntax(
            `Exceeds the limit (${MAX_INT_DIGITS} digits) for integer string conversion: value has ${text.length} digits; use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals to avoid decimal conversion limits.`,
          );
        }
      }
      toks.push({ k: 'num', text, pos: i });
      i += text.length;
      continue;
    }
    if (src.startsWith('...', i)) {
      toks.push({ k: 'op', v: '...', pos: i });
      i += 3;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (two === '**' || two === '//') {
      toks.push({ k: 'op', v: two, pos: i });
      i += 2;
      continue;
    }
    if (c === '(') {
      if (++level > MAX_PAREN_LEVEL) return syntax('too many nested parentheses');
    } else if (c === ')') {
      if (level === 0) return syntax("unmatched ')'");
      level--;
    }
    toks.push({ k: 'op', v: c, pos: i });
    i++;
  }
  toks.push({ k: 'end', pos: src.length });
  return toks;
}

class ParseFail {
  constructor(
    /** Index of the token where parsing failed. */
    readonly at: number,
    /** Parens open at the failing token. */
    readonly level: number,
    /** True when a complete expression was followed by a token that cannot continue it. */
    readonly afterExpression: boolean,
  ) {}
}

class Parser {
  i = 0;
  level = 0;
  nest = 0;
  /** The parser looked at the end of the input (CPython's tokenizer then reports unclosed parens). */
  touchedEnd = false;
  /** A starred item outside a call (refused once the expression has parsed). */
  starredError?: string;
  constructor(readonly toks: Tok[]) {}
  peek(): Tok {
    const t = this.toks[this.i]!;
    if (t.k === 'end') this.touchedEnd = true;
    return t;
  }
  isOp(v: string): boolean {
    const t = this.peek();
    return t.k === 'op' && t.v === v;
  }
  fail(afterExpression = false): never {
    throw new ParseFail(this.i, this.level, afterExpression);
  }
  expect(v: string): void {
    if (!this.isOp(v)) this.fail(true);
    this.i++;
  }
  whole(): Node {
    const e = this.sum();
    if (this.peek().k !== 'end') this.fail(true);
    return e;
  }
  sum(): Node {
    let a = this.term();
    while (this.isOp('+') || this.isOp('-')) {
      const op = (this.toks[this.i++] as { v: string }).v;
      a = { t: 'bin', op, a, b: this.term() };
    }
    return a;
  }
  term(): Node {
    let a = this.factor();
    while (this.isOp('*') || this.isOp('/') || this.isOp('//')) {
      const op = (this.toks[this.i++] as { v: string }).v;
      a = { t: 'bin', op, a, b: this.factor() };
    }
    return a;
  }
  factor(): Node {
    // unary signs and powers nest to the right: bounded like CPython's compiler
    if (++this.nest > MAX_AST_DEPTH) throw new PyError('RecursionError', 'maximum recursion depth exceeded during compilation');
    try {
      if (this.isOp('+') || this.isOp('-')) {
        const op = (this.toks[this.i++] as { v: string }).v as '+' | '-';
        return { t: 'unary', op, x: this.factor() };
      }
      return this.power();
    } finally {
      this.nest--;
    }
  }
  power(): Node {
    const base = this.primary();
    if (this.isOp('**')) {
      this.i++;
      return { t: 'bin', op: '**', a: base, b: this.factor() };
    }
    return base;
  }
  primary(): Node {
    let node = this.atom();
    // trailers: only calls can be written with these characters ('.' would need a name after it)
    for (;;) {
      if (this.isOp('(')) {
        this.i++;
        this.level++;
        const args: { star: '' | '*' | '**'; x: Node }[] = [];
        if (!this.isOp(')')) {
          const star = this.isOp('*') || this.isOp('**') ? ((this.toks[this.i++] as { v: string }).v as '*' | '**') : '';
          args.push({ star, x: this.sum() });
        }
        this.expect(')');
        this.level--;
        node = { t: 'call', f: node, args };
      } else if (this.isOp('.')) {
        this.i++;
        this.fail(); // an attribute name was expected
      } else return node;
    }
  }
  atom(): Node {
    const t = this.peek();
    if (t.k === 'num') {
      this.i++;
      return t.text.includes('.') ? { t: 'float', v: Number(t.text) } : { t: 'int', v: BigInt(t.text) };
    }
    if (t.k === 'op' && t.v === '...') {
      this.i++;
      return { t: 'ellipsis' };
    }
    if (t.k === 'op' && t.v === '(') {
      this.i++;
      this.level++;
      if (this.isOp(')')) {
        this.i++;
        this.level--;
        return { t: 'tuple' };
      }
      if (this.isOp('*') || this.isOp('**')) {
        // a starred item parses, then the compiler refuses it outside a call
        const star = (this.toks[this.i++] as { v: string }).v;
        this.sum();
        this.starredError ??= star === '*' ? 'cannot use starred expression here' : 'cannot use double starred expression here';
        this.expect(')');
        this.level--;
        return { t: 'starred' };
      }
      const e = this.sum();
      this.expect(')');
      this.level--;
      return e;
    }
    return this.fail();
  }
}

function depth(n: Node): number {
  // iterative: the tree can be deep
  let max = 0;
  const stack: [Node, number][] = [[n, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (d > max) max = d;
    if (x.t === 'unary') stack.push([x.x, d + 1]);
    else if (x.t === 'bin') stack.push([x.a, d + 1], [x.b, d + 1]);
    else if (x.t === 'call') {
      stack.push([x.f, d + 1]);
      for (const a of x.args) stack.push([a.x, d + 1]);
    }
  }
  return max;
}

const typeName = (v: Val): string => (v.t === 'ellipsis' ? 'ellipsis' : v.t);
const typeError = (m: string) => new PyError('TypeError', m);
const zeroDiv = (m: string) => new PyError('ZeroDivisionError', m);

function toFloat(v: { t: 'int'; v: bigint } | { t: 'float'; v: number }): number {
  return v.t === 'float' ? v.v : intToFloat(v.v);
}

function floatFloorDiv(vx: number, wx: number): number {
  if (wx === 0) throw zeroDiv('float floor division by zero');
  let mod = vx % wx;
  let div = (vx - mod) / wx;
  if (mod) {
    if (wx < 0 !== mod < 0) {
      mod += wx;
      div -= 1.0;
    }
  }
  if (div) {
    let fd = Math.floor(div);
    if (div - fd > 0.5) fd += 1.0;
    return fd;
  }
  return vx / wx < 0 || Object.is(vx / wx, -0) ? -0 : 0;
}

function floatPow(iv: number, iw: number): Val {
  if (iw === 0) return { t: 'float', v: 1.0 };
  if (Number.isNaN(iv)) return { t: 'float', v: iv };
  if (Number.isNaN(iw)) return { t: 'float', v: iv === 1.0 ? 1.0 : iw };
  const oddInt = Number.isInteger(iw) && Math.abs(iw % 2) === 1;
  if (!Number.isFinite(iw)) {
    const a = Math.abs(iv);
    return { t: 'float', v: a === 1 ? 1.0 : a > 1 === iw > 0 ? Infinity : 0.0 };
  }
  if (!Number.isFinite(iv)) return { t: 'float', v: iw > 0 ? (oddInt ? iv : Infinity) : oddInt ? (iv < 0 ? -0 : 0) : 0.0 };
  if (iv === 0) {
    if (iw < 0) throw zeroDiv('0.0 cannot be raised to a negative power');
    return { t: 'float', v: oddInt ? iv : 0.0 };
  }
  let negate = false;
  if (iv < 0) {
    if (iw !== Math.floor(iw)) return { t: 'complex' };
    iv = -iv;
    negate = oddInt;
  }
  if (iv === 1.0) return { t: 'float', v: negate ? -1.0 : 1.0 };
  const r = Number.isInteger(iw) && Math.abs(iw) <= 4096 ? exactPow(iv, iw) : iv ** iw;
  if (!Number.isFinite(r) && Number.isFinite(iv) && Number.isFinite(iw)) throw new PyError('OverflowError', "(34, 'Numerical result out of range')");
  return { t: 'float', v: negate ? -r : r };
}

/** x ** k for a finite x > 0 and an integer k, correctly rounded (as C's pow is, where JS's may be an ulp off). */
function exactPow(x: number, k: number): number {
  let m = x;
  let e = 0;
  while (!Number.isInteger(m)) {
    m *= 2;
    e--;
  }
  let big = BigInt(m);
  while ((big & 1n) === 0n) {
    big >>= 1n;
    e++;
  }
  if (big === 1n) return ldexp(1, e * k);
  const n = big ** BigInt(Math.abs(k));
  if (k >= 0) {
    // keep 60 leading bits and a sticky bit, so the one rounding happens in Number()
    const drop = Math.max(0, bitLength(n) - 60);
    const lost = drop > 0 && (n & ((1n << BigInt(drop)) - 1n)) !== 0n ? 1n : 0n;
    return ldexp(Number(((n >> BigInt(drop)) << 1n) | lost), e * k + drop - 1);
  }
  // 2^(e*k) / n, rounded once: scale the quotient to 55+ bits and keep a sticky bit
  const shift = bitLength(n) + 55;
  const q = (1n << BigInt(shift)) / n;
  const sticky = (1n << BigInt(shift)) % n !== 0n ? 1n : 0n;
  return ldexp(Number((q << 1n) | sticky), e * k - shift - 1);
}

function intPow(a: bigint, b: bigint): Val {
  if (b < 0n) return floatPow(intToFloat(a), intToFloat(b));
  if (a === 0n || a === 1n) return { t: 'int', v: b === 0n ? 1n : a };
  if (a === -1n) return { t: 'int', v: b % 2n === 0n ? 1n : -1n };
  const bits = BigInt(bitLength(a) - 1) * b;
  if (bits > BigInt(MAX_POW_BITS)) throw new PyError('OverflowError', 'int too large to convert to float');
  return { t: 'int', v: a ** b };
}

const OPNAME: Record<string, string> = { '+': '+', '-': '-', '*': '*', '/': '/', '//': '//', '**': '** or pow()' };

function binop(op: string, x: Val, y: Val): Val {
  const num = (v: Val): v is { t: 'int'; v: bigint } | { t: 'float'; v: number } => v.t === 'int' || v.t === 'float';
  // the empty tuple: concatenation, and repetition by an int
  if (x.t === 'tuple' && op === '+') {
    if (y.t === 'tuple') return x;
    throw typeError(`can only concatenate tuple (not "${typeName(y)}") to tuple`);
  }
  if (op === '*' && (x.t === 'tuple' || y.t === 'tuple')) {
    const n = x.t === 'tuple' ? y : x;
    if (n.t === 'int') return { t: 'tuple' };
    throw typeError(`can't multiply sequence by non-int of type '${typeName(n)}'`);
  }
  if (x.t === 'complex' || y.t === 'complex') {
    const other = x.t === 'complex' ? y : x;
    if ((other.t !== 'complex' && !num(other)) || op === '//')
      throw typeError(`unsupported operand type(s) for ${OPNAME[op]}: '${typeName(x)}' and '${typeName(y)}'`);
    if (op === '/' && num(y) && toFloat(y) === 0) throw zeroDiv('complex division by zero');
    return { t: 'complex' };
  }
  if (num(x) && num(y)) {
    if (x.t === 'int' && y.t === 'int') {
      switch (op) {
        case '+':
          return { t: 'int', v: x.v + y.v };
        case '-':
          return { t: 'int', v: x.v - y.v };
        case '*':
          if (bitLength(x.v) + bitLength(y.v) > MAX_POW_BITS) throw new PyError('OverflowError', 'int too large to convert to float');
          return { t: 'int', v: x.v * y.v };
        case '/':
          return { t: 'float', v: intTrueDiv(x.v, y.v) };
        case '//': {
          if (y.v === 0n) throw zeroDiv('integer division or modulo by zero');
          const q = x.v / y.v;
          return { t: 'int', v: x.v % y.v !== 0n && x.v < 0n !== y.v < 0n ? q - 1n : q };
        }
        case '**':
          return intPow(x.v, y.v);
      }
    }
    const a = toFloat(x);
    const b = toFloat(y);
    switch (op) {
      case '+':
        return { t: 'float', v: a + b };
      case '-':
        return { t: 'float', v: a - b };
      case '*':
        return { t: 'float', v: a * b };
      case '/':
        if (b === 0) throw zeroDiv('float division by zero');
        return { t: 'float', v: a / b };
      case '//':
        return { t: 'float', v: floatFloorDiv(a, b) };
      case '**':
        return floatPow(a, b);
    }
  }
  throw typeError(`unsupported operand type(s) for ${OPNAME[op]}: '${typeName(x)}' and '${typeName(y)}'`);
}

/** str() of a value, as CPython names a callee in argument errors. */
function display(v: Val): string {
  switch (v.t) {
    case 'int':
      return v.v.toString();
    case 'float':
      return floatRepr(v.v);
    case 'tuple':
      return '()';
    case 'ellipsis':
      return 'Ellipsis';
    case 'complex':
      return 'complex';
  }
}

function evaluate(n: Node): Val {
  switch (n.t) {
    case 'int':
    case 'float':
    case 'tuple':
    case 'ellipsis':
      return n;
    case 'unary': {
      const x = evaluate(n.x);
      if (x.t === 'int') return { t: 'int', v: n.op === '-' ? -x.v : x.v };
      if (x.t === 'float') return { t: 'float', v: n.op === '-' ? -x.v : x.v };
      if (x.t === 'complex') return x;
      throw typeError(`bad operand type for unary ${n.op}: '${typeName(x)}'`);
    }
    case 'bin': {
      const a = evaluate(n.a);
      const b = evaluate(n.b);
      return binop(n.op, a, b);
    }
    case 'call': {
      const f = evaluate(n.f);
      for (const a of n.args) {
        const v = evaluate(a.x);
        if (a.star === '*' && v.t !== 'tuple') throw typeError(`${display(f)} argument after * must be an iterable, not ${typeName(v)}`);
        if (a.star === '**') throw typeError(`${display(f)} argument after ** must be a mapping, not ${typeName(v)}`);
      }
      throw typeError(`'${typeName(f)}' object is not callable`);
    }
    case 'starred':
      throw new Error('unreachable: starred items are refused before evaluation');
  }
}

/**
 * The SyntaxError CPython 3.11 reports for a parse that failed at `f`: an unclosed '(' when its
 * parser reads to the end of the input with parentheses open (directly, or while its second pass
 * tries to read a second expression after a complete one); a starred item met before the failure;
 * "Perhaps you forgot a comma?" for two expressions side by side inside parentheses; else
 * "invalid syntax".
 */
function syntaxErrorAt(toks: Tok[], f: ParseFail, starredError: string | undefined): PyError {
  let open = 0;
  for (const t of toks) if (t.k === 'op') open += t.v === '(' ? 1 : t.v === ')' ? -1 : 0;
  const never = syntax("'(' was never closed");
  const tok = toks[f.at]!;
  if (tok.k === 'end') return open > 0 ? never : syntax(starredError ?? INVALID);
  const startsExpression = tok.k === 'num' || (tok.k === 'op' && ['(', '...', '+', '-'].includes(tok.v));
  const second = f.afterExpression && startsExpression;
  // CPython's second pass reads a second expression here: as far as it can (which may reach the
  // end), and it counts as one when at least a single operand parses
  const attempt = (how: (p: Parser) => void): { ok: boolean; touchedEnd: boolean } => {
    const sub = new Parser(toks);
    sub.i = f.at;
    sub.level = f.level;
    try {
      how(sub);
      return { ok: true, touchedEnd: sub.touchedEnd };
    } catch (e) {
      if (!(e instanceof ParseFail)) throw e;
      return { ok: false, touchedEnd: sub.touchedEnd };
    }
  };
  if (second && attempt((p) => p.sum()).touchedEnd && open > 0) return never;
  if (starredError) return syntax(starredError);
  if (!second) return syntax(INVALID);
  return syntax(attempt((p) => p.factor()).ok && f.level > 0 ? 'invalid syntax. Perhaps you forgot a comma?' : INVALID);
}

/** eval(expression) for an expression already checked to hold only the allowed characters. */
export function evalArithmetic(src: string): Val {
  const toks = tokenize(src);
  if (toks instanceof PyError) throw toks;
  if (toks.length === 1) throw new PyError('SyntaxError', `${INVALID} (<string>, line 0)`);
  const p = new Parser(toks);
  let tree: Node;
  try {
    tree = p.whole();
  } catch (e) {
    if (!(e instanceof ParseFail)) throw e;
    throw syntaxErrorAt(toks, e, p.starredError);
  }
  if (p.starredError) throw syntax(p.starredError);
  if (depth(tree) > MAX_AST_DEPTH) throw new PyError('RecursionError', 'maximum recursion depth exceeded during compilation');
  return evaluate(tree);
}

/** The observation of tau-bench's `calculate` tool for a string expression. */
export function calculate(expression: string): string {
  for (const ch of expression) if (!'0123456789+-*/(). '.includes(ch)) return 'Error: invalid characters in expression';
  try {
    const v = evalArithmetic(expression);
    if (v.t !== 'int' && v.t !== 'float') throw typeError(`float() argument must be a string or a real number, not '${typeName(v)}'`);
    return floatRepr(roundFloat(toFloat(v), 2n));
  } catch (e) {
    if (e instanceof PyError) return `Error: ${e.text()}`;
    throw e;
  }
}
