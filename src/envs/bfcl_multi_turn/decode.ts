// The model's turns into BFCL execution strings. `calls`: each turn is a list of calls, each a
// Python call string (a bracketed list of calls is split into its calls), an OpenAI tool call
// ({type: "function", function: {name, arguments}} or {name, arguments}), an assistant message with
// tool_calls, or a list of those (a step). `bfcl_result`: each turn is a list of steps as BFCL's
// result files hold them, decoded as BFCL's handlers decode them: a text step with
// default_decode_execute_prompting (positional arguments dropped, names and keyword-less calls
// turned into strings, nested calls into nested call strings), a list of {name: arguments} with
// convert_to_function_call; a step that does not decode, or decodes to nothing, is dropped.
import { BadToolCall, toolCallString } from './apis/calls.js';
import { EnvLimit, Unsupported } from '../../py/errors.js';
import { pyRepr, pyStr } from '../../py/format.js';
import { fromJs, loads } from '../../py/json.js';
import * as num from '../../py/num.js';
import { PY_SPACE_CLASS, strip } from '../../py/text.js';
import { PyBytes, PyDict, PyTuple, type PyValue } from '../../py/values.js';
import { parsePythonExpr, type PyAst, unparse } from '../../extract/python-call.js';
import { ParseError } from '../../extract/tool-call-types.js';

export type InputFormat = 'calls' | 'bfcl_result';

/** A problem with the input's shape (not with what a call does): the grade is invalid. */
export class BadTurns extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadTurns';
  }
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** An OpenAI-style tool call as BFCL's convert_to_function_call renders it: name(k=repr(v),...). */
function toolCall(name: string, args: unknown, where: string): string {
  try {
    return toolCallString(name, args);
  } catch (e) {
    if (e instanceof BadToolCall) throw new BadTurns(`${where}: ${e.message}`);
    throw e;
  }
}

function callStringsOf(v: unknown, where: string, depth: number): string[] {
  if (depth > 6) throw new BadTurns(`${where}: calls nested too deeply`);
  if (typeof v === 'string') return splitCallList(v);
  if (Array.isArray(v)) return v.flatMap((x, i) => callStringsOf(x, `${where}[${i}]`, depth + 1));
  if (isObj(v)) {
    if (Array.isArray(v.tool_calls)) return callStringsOf(v.tool_calls, `${where}.tool_calls`, depth + 1);
    if (v.tool_calls === null || (v.role === 'assistant' && v.tool_calls === undefined)) return [];
    const fn = isObj(v.function) ? v.function : v;
    if (typeof fn.name === 'string') return [toolCall(fn.name, fn.arguments ?? fn.parameters, where)];
    throw new BadTurns(`${where}: an object in a turn must be a tool call ({"name", "arguments"}) or an assistant message with tool_calls`);
  }
  if (v === null || v === undefined) return [];
  throw new BadTurns(`${where}: a call must be a string or a tool-call object, got ${typeof v}`);
}

/** A string holding `[a(...), b(...)]` is its calls; a blank string is none; anything else is one call string, executed as written. */
function splitCallList(s: string): string[] {
  const t = s.trim();
  if (t === '') return [];
  if (!t.startsWith('[') && !t.startsWith('(')) return [s];
  let ast: PyAst;
  try {
    ast = parsePythonExpr(t);
  } catch {
    return [s];
  }
  if ((ast.k === 'list' || ast.k === 'tuple') && ast.items.every((x) => x.k === 'call')) return ast.items.map((x) => unparse(x));
  return [s];
}

// ---- BFCL's prompting decoder ------------------------------------------------------------------

/** The decode failed: BFCL drops the step. */
class Drop extends Error {}

function dottedName(n: PyAst): string {
  const parts: string[] = [];
  let f = n;
  while (f.k === 'attr') {
    parts.push(f.attr);
    f = f.value;
  }
  if (f.k === 'name') parts.push(f.id);
  return parts.reverse().join('.');
}

/** resolve_ast_call: {name: {keyword: value}} (positional arguments are ignored). */
function resolveCall(n: Extract<PyAst, { k: 'call' }>): PyDict {
  const args = new PyDict();
  for (const [k, v] of n.keywords) args.set(k, resolveValue(v));
  return PyDict.of([[dottedName(n.func), args]]);
}

/** Literal arithmetic, as eval(ast.unparse(node)) computes it (names are not modelled). */
function evalArith(n: PyAst): PyValue {
  switch (n.k) {
    case 'int':
    case 'float':
    case 'str':
      return n.v;
    case 'const':
      return n.v;
    case 'unary': {
      const v = evalArith(n.operand);
      return n.op === '-' ? num.neg(v) : n.op === '+' ? num.pos(v) : num.invert(v);
    }
    case 'binop': {
      const a = evalArith(n.left);
      const b = evalArith(n.right);
      const ops = { '+': num.add, '-': num.sub, '*': num.mul, '/': num.truediv, '//': num.floordiv, '%': num.mod, '**': num.pow };
      return ops[n.op](a, b);
    }
    case 'list':
      return n.items.map(evalArith);
    case 'tuple':
      return new PyTuple(n.items.map(evalArith));
    case 'name':
      // eval() in BFCL's model_handler/utils: builtins and that module's imports exist, other names do not
      if (KNOWN_NAMES.has(n.id)) throw new Unsupported(`the prompting decoder would evaluate "${n.id}" with Python's eval`);
      throw new Drop();
    case 'call':
    case 'attr': {
      let root: PyAst = n;
      while (root.k === 'call' || root.k === 'attr') root = root.k === 'call' ? root.func : root.value;
      if (root.k === 'name' && !KNOWN_NAMES.has(root.id)) throw new Drop();
      throw new Unsupported(`the prompting decoder would evaluate "${unparse(n).slice(0, 80)}" with Python's eval; only literal arithmetic is modelled`);
    }
    default:
      throw new Unsupported(`the prompting decoder would evaluate "${unparse(n).slice(0, 80)}" with Python's eval; only literal arithmetic is modelled`);
  }
}

/** Python builtins and the modules BFCL's model_handler/utils imports by name. */
const KNOWN_NAMES = new Set(
  (
    'abs all any ascii bin bool bytearray bytes callable chr complex dict dir divmod enumerate eval exec filter float format frozenset ' +
    'getattr globals hasattr hash hex id int isinstance issubclass iter len list locals map max min next object oct open ord pow print ' +
    'range repr reversed round set setattr slice sorted str sum super tuple type vars zip True False None Ellipsis ' +
    'ast builtins copy json operator re reduce'
  ).split(' '),
);

/** resolve_ast_by_type. */
function resolveValue(n: PyAst): PyValue {
  switch (n.k) {
    case 'int':
    case 'float':
    case 'str':
      return n.v;
    case 'bytes':
      return new PyBytes(n.v, unparse(n));
    case 'const':
      return n.v;
    case 'ellipsis':
      return '...';
    case 'unary': {
      // BFCL negates whatever the unary operator is, and only constants have a .value
      const o = n.operand;
      if (o.k !== 'int' && o.k !== 'float' && o.k !== 'str' && o.k !== 'const') throw new Drop();
      return num.neg(o.v);
    }
    case 'list':
      return n.items.map(resolveValue);
    case 'tuple':
      return new PyTuple(n.items.map(resolveValue));
    case 'dict': {
      const d = new PyDict();
      for (const [k, v] of n.entries) d.set(resolveValue(k), resolveValue(v));
      return d;
    }
    case 'binop':
      try {
        return evalArith(n);
      } catch (e) {
        if (e instanceof Unsupported) throw e;
        throw new Drop();
      }
    case 'name':
      return n.id;
    case 'call':
      return n.keywords.length === 0 ? unparse(n) : resolveCall(n);
    default:
      // Attribute, Set and every other node: "Unsupported AST type"
      throw new Drop();
  }
}

/** parse_nested_value. */
function nestedValue(v: PyValue): string {
  if (v instanceof PyDict) {
    if (v.values().every((x) => x instanceof PyDict)) {
      const first = v.keys()[0];
      if (first === undefined) throw new Drop(); // list(value.keys())[0] on {}
      const args = v.item(first) as PyDict;
      return `${pyStr(first)}(${args
        .entries()
        .map(([k, x]) => `${pyStr(k)}=${nestedValue(x)}`)
        .join(', ')})`;
    }
    return `{${v
      .entries()
      .map(([k, x]) => `'${pyStr(k)}': ${nestedValue(x)}`)
      .join(', ')}}`;
  }
  return pyRepr(v);
}

const PY_STRIP = new RegExp(`^[${PY_SPACE_CLASS}]+|[${PY_SPACE_CLASS}]+$`, 'g');

/** default_decode_execute_prompting; undefined when BFCL's decoder raises (the step is dropped). */
export function decodePrompting(text: string): string[] | undefined {
  let r = strip(text, '`\n ');
  if (!r.startsWith('[')) r = `[${r}`;
  if (!r.endsWith(']')) r = `${r}]`;
  const cleaned = strip(r.replace(PY_STRIP, ''), "'");
  let ast: PyAst;
  try {
    ast = parsePythonExpr(cleaned);
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    if (e.kind === 'limit') throw new EnvLimit(`a model step: ${e.message}`);
    if (e.kind === 'unsupported' && e.construct !== 'expression' && e.construct !== 'bytes') throw new Unsupported(`a model step uses ${e.message}`);
    return undefined;
  }
  try {
    const calls: PyDict[] = [];
    if (ast.k === 'call') calls.push(resolveCall(ast));
    else if (ast.k === 'list' || ast.k === 'tuple' || ast.k === 'set') {
      for (const el of ast.items) {
        if (el.k !== 'call') return undefined; // assert isinstance(elem, ast.Call)
        calls.push(resolveCall(el));
      }
    } else return undefined;
    return calls.flatMap((c) =>
      c.entries().map(
        ([name, args]) =>
          `${pyStr(name)}(${(args as PyDict)
            .entries()
            .map(([k, v]) => `${pyStr(k)}=${nestedValue(v)}`)
            .join(', ')})`,
      ),
    );
  } catch (e) {
    if (e instanceof Drop) return undefined;
    if (e instanceof Error && e.name === 'PyException') return undefined;
    throw e;
  }
}

/** convert_to_function_call over a list of {name: arguments}; undefined when it raises. */
export function decodeFunctionCalling(step: unknown): string[] | undefined {
  const list = isObj(step) ? [step] : step;
  if (!Array.isArray(list)) return undefined;
  const out: string[] = [];
  for (const fc of list) {
    if (!isObj(fc)) return undefined;
    for (const [name, raw] of Object.entries(fc)) {
      let value: PyValue;
      if (typeof raw === 'string') {
        try {
          value = loads(raw);
        } catch {
          return undefined;
        }
      } else value = fromJs(raw);
      if (!(value instanceof PyDict)) return undefined;
      out.push(
        `${name}(${value
          .entries()
          .map(([k, v]) => `${pyStr(k)}=${pyRepr(v)}`)
          .join(',')})`,
      );
    }
  }
  return out;
}

export interface DecodedTurn {
  /** Non-empty steps, each a list of execution strings (BFCL's model_result_decoded). */
  steps: string[][];
  /** Steps dropped because they did not decode (bfcl_result only). */
  dropped: number;
}

/** Decodes every turn of the model's output. */
export function decodeTurns(turns: unknown[], format: InputFormat): DecodedTurn[] {
  return turns.map((turn, t) => {
    const where = `turn ${t}`;
    if (format === 'calls') {
      const calls = turn === null || turn === undefined ? [] : callStringsOf(Array.isArray(turn) ? turn : [turn], where, 0);
      return { steps: calls.length ? [calls] : [], dropped: 0 };
    }
    if (!Array.isArray(turn)) throw new BadTurns(`${where}: in bfcl_result format a turn must be a list of steps`);
    const steps: string[][] = [];
    let dropped = 0;
    for (const step of turn) {
      const decoded = typeof step === 'string' ? decodePrompting(step) : decodeFunctionCalling(step);
      if (decoded === undefined) dropped++;
      else if (decoded.length) steps.push(decoded);
    }
    return { steps, dropped };
  });
}
