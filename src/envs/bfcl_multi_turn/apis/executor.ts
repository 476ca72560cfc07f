// BFCL's execute_multi_turn_func_call in TypeScript: one instance per involved class, loaded from
// its initial_config (stateless classes are not); every public method name mapped to the instance
// of the last class that has it; each call string rewritten as BFCL rewrites it (every `name(` of a
// mapped method, string literals included, becomes `<instance>.name(`, whitespace before the
// parenthesis dropped), refused when its first name is kill/exit/quit/remove/unlink/popen/Popen/run,
// evaluated, and its result turned into text (str as is, dict via json.dumps else str(), anything
// else str()) or "Error during execution: <message>".
import type { ApiClass, ApiInstance, BfclEnv, MethodSpec } from './api.js';
import { bindArgs } from './api.js';
import { GorillaFileSystemClass } from './classes/gorilla-file-system.js';
import { MathAPIClass } from './classes/math-api.js';
import { MessageAPIClass } from './classes/message-api.js';
import { TicketAPIClass } from './classes/ticket-api.js';
import { TradingBotClass } from './classes/trading-bot.js';
import { TravelAPIClass } from './classes/travel-api.js';
import { TwitterAPIClass } from './classes/twitter-api.js';
import { VehicleControlAPIClass } from './classes/vehicle-control.js';
import { MemoryKvClass, MemoryRecSumClass } from './classes/memory.js';
import { EnvLimit, PyException, Unsupported } from '../../../py/errors.js';
import { jsonDumps, pyStr } from '../../../py/format.js';
import * as num from '../../../py/num.js';
import { PY_SPACE_CLASS } from '../../../py/text.js';
import { PY_ELLIPSIS, PyBytes, PyDict, PyObject, PySet, PyTuple, type PyValue, typeName } from '../../../py/values.js';
import { parsePythonExpr, type PyAst, unparse } from '../../../extract/python-call.js';
import { ParseError } from '../../../extract/tool-call-types.js';

/** The simulated classes, by the name `involved_classes` uses. */
export const API_CLASSES: Readonly<Record<string, ApiClass>> = Object.freeze(
  Object.fromEntries(
    [
      GorillaFileSystemClass,
      MathAPIClass,
      MessageAPIClass,
      TwitterAPIClass,
      TicketAPIClass,
      TradingBotClass,
      TravelAPIClass,
      VehicleControlAPIClass,
      MemoryKvClass,
      MemoryRecSumClass,
    ].map((c) => [c.name, c as ApiClass]),
  ),
);

/** BFCL classes arbiter does not simulate, and why. */
export const UNSIMULATED: Readonly<Record<string, string>> = {
  WebSearchAPI: 'it calls a live search engine and fetches web pages',
  MemoryAPI_vector: 'it ranks with a sentence-transformers embedding model and FAISS',
};

const BLOCKED = new Set(['kill', 'exit', 'quit', 'remove', 'unlink', 'popen', 'Popen', 'run']);

/** Names in multi_turn_utils' globals and Python's builtins: evaluating them is not modelled (other names are a NameError). */
const PY_GLOBALS = new Set(
  (
    'copy importlib inspect json re CLASS_FILE_PATH_MAPPING STATELESS_CLASSES execute_multi_turn_func_call is_empty_execute_response ' +
    '_process_method_calls __name__ __doc__ __package__ __loader__ __spec__ __file__ __cached__ __builtins__ ' +
    'abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex copyright credits delattr ' +
    'dict dir divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr hash help hex id input int isinstance ' +
    'issubclass iter len license list locals map max memoryview min next object oct open ord pow property quit range repr reversed ' +
    'round set setattr slice sorted staticmethod str sum super tuple type vars zip __import__ __build_class__ __debug__ Ellipsis ' +
    'NotImplemented ArithmeticError AssertionError AttributeError BaseException BlockingIOError BrokenPipeError BufferError BytesWarning ' +
    'ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError ' +
    'EncodingWarning EnvironmentError Exception FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ' +
    'ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError ' +
    'MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplementedError OSError OverflowError PendingDeprecationWarning ' +
    'PermissionError ProcessLookupError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration ' +
    'StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError UnicodeDecodeError ' +
    'UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError'
  ).split(' '),
);

/**
 * BFCL's instance variable name for one class of one side: the evaluation's (`<model>_eval_...`),
 * or, with `evalRun` false, the inference loop's (`<model>_...`), as execute_multi_turn_func_call names them.
 */
export function instanceName(modelName: string, entryId: string, className: string, evalRun = true): string {
  return `${modelName}${evalRun ? '_eval' : ''}_${entryId}_${className}_instance`.replace(/[-./:]/g, '_');
}

interface Bound {
  readonly className: string;
  readonly inst: ApiInstance;
  readonly cls: ApiClass;
}

/** A bound method value (what `inst.method` evaluates to). */
class BoundMethod extends PyObject {
  readonly pyType = 'method';
  constructor(
    readonly owner: Bound,
    readonly name: string,
    readonly spec: MethodSpec<ApiInstance>,
  ) {
    super();
  }
  override pyRepr(): string {
    return `<bound method ${this.owner.className}.${this.name} of <${this.owner.className} object>>`;
  }
}

/** An instance value (what an instance name evaluates to). */
class InstanceRef extends PyObject {
  readonly pyType: string;
  constructor(readonly bound: Bound) {
    super();
    this.pyType = bound.className;
  }
  override pyRepr(): string {
    return `<${this.bound.className} object>`;
  }
}

class PrintBuiltin extends PyObject {
  readonly pyType = 'builtin_function_or_method';
  override pyRepr(): string {
    return '<built-in function print>';
  }
}
const PRINT = new PrintBuiltin();

export interface SideOptions {
  env: BfclEnv;
  involvedClasses: readonly string[];
  /** Class name -> a fresh scenario (the deepcopy BFCL loads); undefined when initial_config has none. */
  scenario(className: string): PyValue | undefined;
  longContext: boolean;
  /** BFCL's model_name for this side (the ground truth's is `<model>_ground_truth`). */
  modelName: string;
  entryId: string;
  /** Name the instances as BFCL's evaluation does (default) or as its inference loop does (false). */
  evalRun?: boolean;
  /** The work-budget account this side's calls are charged to (BfclEnv.account; default: the shared one). */
  account?: string;
}

/** The instances one side (the model's or the ground truth's) executes against. */
export class Side {
  readonly bound = new Map<string, Bound>();
  private readonly byInstanceName = new Map<string, Bound>();
  private readonly methodOwner = new Map<string, string>();
  private readonly env: BfclEnv;
  private readonly account: string | undefined;

  constructor(o: SideOptions) {
    this.env = o.env;
    this.account = o.account;
    for (const className of o.involvedClasses) {
      const cls = Object.hasOwn(API_CLASSES, className) ? API_CLASSES[className] : undefined;
      if (!cls) throw new Unsupported(`class ${className} is not simulated${Object.hasOwn(UNSIMULATED, className) ? ` (${UNSIMULATED[className]})` : ''}`);
      const inst = cls.create(o.env);
      if (!cls.stateless) {
        // initial_config.get(class_name, {}): anything but a dict fails in _load_scenario
        const given = o.scenario(className);
        const scenario = given === undefined ? new PyDict() : given;
        if (!(scenario instanceof PyDict)) throw new PyException('AttributeError', `'${typeName(scenario)}' object has no attribute 'get'`);
        if (o.account === undefined) inst.loadScenario(scenario, o.longContext);
        else o.env.account(o.account, () => inst.loadScenario(scenario, o.longContext));
      }
      const name = instanceName(o.modelName, o.entryId, className, o.evalRun ?? true);
      const b: Bound = { className, inst, cls };
      this.bound.set(className, b);
      this.byInstanceName.set(name, b);
      for (const m of Object.keys(cls.methods).sort()) if (!m.startsWith('_')) this.methodOwner.set(m, name);
    }
  }

  /** `_process_method_calls`: prefixes mapped method names (anywhere in the text) with their instance. */
  rewrite(call: string): string {
    return call.replace(REWRITE_RE, (_m, name: string) => {
      const inst = this.methodOwner.get(name);
      return inst === undefined ? name : `${inst}.${name}`;
    });
  }

  /** Executes calls in order; one result text per call. */
  execute(calls: readonly string[]): string[] {
    if (this.account === undefined) return calls.map((c) => this.executeOne(c));
    return this.env.account(this.account, () => calls.map((c) => this.executeOne(c)));
  }

  private executeOne(raw: string): string {
    this.env.spend();
    const call = this.rewrite(raw);
    try {
      let head = call.includes('(') ? call.split('(')[0]! : call;
      if (head.includes('.')) head = head.split('.')[1]!;
      if (BLOCKED.has(head)) throw new PyException('Exception', `Function call ${head} is not allowed.`);
      let ast: PyAst;
      try {
        ast = parsePythonExpr(call);
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        if (e.kind === 'unsupported') throw new Unsupported(`${e.message} in the call ${JSON.stringify(raw.slice(0, 200))}`);
        if (e.kind === 'limit') throw new EnvLimit(`${e.message} in the call ${JSON.stringify(raw.slice(0, 200))}`);
        throw new PyException('SyntaxError', `${e.message} (<string>, line 1)`);
      }
      const dup = repeatedKeyword(ast);
      if (dup !== undefined) throw new PyException('SyntaxError', `keyword argument repeated: ${dup} (<string>, line 1)`);
      const result = this.evaluate(ast, 0);
      if (typeof result === 'string') return result;
      if (result instanceof PyDict) {
        try {
          return jsonDumps(result);
        } catch (e) {
          if (!(e instanceof PyException)) throw e;
          return pyStr(result);
        }
      }
      return pyStr(result);
    } catch (e) {
      if (e instanceof PyException) return `Error during execution: ${e.text()}`;
      throw e;
    }
  }

  private evaluate(n: PyAst, depth: number): PyValue {
    if (depth > 200) throw new EnvLimit('an expression is nested more than 200 levels deep');
    switch (n.k) {
      case 'int':
        return n.v;
      case 'float':
        return n.v;
      case 'str':
        return n.v;
      case 'const':
        return n.v;
      case 'ellipsis':
        return PY_ELLIPSIS;
      case 'bytes':
        return new PyBytes(n.v, unparse(n));
      case 'list':
        return n.items.map((x) => this.evaluate(x, depth + 1));
      case 'tuple':
        return new PyTuple(n.items.map((x) => this.evaluate(x, depth + 1)));
      case 'set':
        return PySet.of(n.items.map((x) => this.evaluate(x, depth + 1)));
      case 'dict': {
        const d = new PyDict();
        for (const [k, v] of n.entries) {
          const key = this.evaluate(k, depth + 1);
          d.set(key, this.evaluate(v, depth + 1));
        }
        return d;
      }
      case 'unary': {
        const v = this.evaluate(n.operand, depth + 1);
        return n.op === '-' ? num.neg(v) : n.op === '+' ? num.pos(v) : num.invert(v);
      }
      case 'binop': {
        const a = this.evaluate(n.left, depth + 1);
        const b = this.evaluate(n.right, depth + 1);
        switch (n.op) {
          case '+':
            return num.add(a, b);
          case '-':
            return num.sub(a, b);
          case '*':
            return num.mul(a, b);
          case '/':
            return num.truediv(a, b);
          case '//':
            return num.floordiv(a, b);
          case '%':
            return num.mod(a, b);
          case '**':
            return num.pow(a, b);
        }
        break;
      }
      case 'name': {
        const b = this.byInstanceName.get(n.id);
        if (b) return new InstanceRef(b);
        if (n.id === 'print') return PRINT;
        if (PY_GLOBALS.has(n.id)) throw new Unsupported(`evaluating "${n.id}" (a Python builtin or module global) is not modelled`);
        throw new PyException('NameError', `name '${n.id}' is not defined`);
      }
      case 'attr': {
        const base = this.evaluate(n.value, depth + 1);
        if (base instanceof InstanceRef) {
          // an untrusted name: own methods only (never Object.prototype's constructor, __proto__, toString…)
          const spec = Object.hasOwn(base.bound.cls.methods, n.attr) ? base.bound.cls.methods[n.attr] : undefined;
          if (spec) return new BoundMethod(base.bound, n.attr, spec as MethodSpec<ApiInstance>);
          if (base.bound.inst.stateAttrs().some(([k]) => k === n.attr)) throw new Unsupported(`reading the attribute ${n.attr} is not modelled`);
          throw new PyException('AttributeError', `'${base.bound.className}' object has no attribute '${n.attr}'`);
        }
        throw new Unsupported(`attribute ${n.attr} of a ${typeName(base)} value is not evaluated`);
      }
      case 'call': {
        const fn = this.evaluate(n.func, depth + 1);
        const args = n.args.map((a) => this.evaluate(a, depth + 1));
        const keywords: [string, PyValue][] = n.keywords.map(([k, v]) => [k, this.evaluate(v, depth + 1)]);
        if (fn === PRINT) return null;
        if (fn instanceof BoundMethod) {
          this.env.spend();
          const bound = bindArgs(`${fn.owner.className}.${fn.name}`, fn.spec as MethodSpec<unknown>, this.env, args, keywords);
          return fn.spec.call(fn.owner.inst, bound);
        }
        throw new PyException('TypeError', `'${typeName(fn)}' object is not callable`);
      }
    }
    throw new Unsupported('expression not evaluated');
  }
}

/** A keyword given twice in one call (ast.parse accepts it; compiling for eval does not). */
function repeatedKeyword(n: PyAst, depth = 0): string | undefined {
  if (depth > 300) return undefined;
  const kids: PyAst[] = [];
  switch (n.k) {
    case 'call': {
      const seen = new Set<string>();
      for (const [k] of n.keywords) {
        if (seen.has(k)) return k;
        seen.add(k);
      }
      kids.push(n.func, ...n.args, ...n.keywords.map(([, v]) => v));
      break;
    }
    case 'list':
    case 'tuple':
    case 'set':
      kids.push(...n.items);
      break;
    case 'dict':
      for (const [k, v] of n.entries) kids.push(k, v);
      break;
    case 'attr':
      kids.push(n.value);
      break;
    case 'unary':
      kids.push(n.operand);
      break;
    case 'binop':
      kids.push(n.left, n.right);
      break;
  }
  for (const kid of kids) {
    const r = repeatedKeyword(kid, depth + 1);
    if (r !== undefined) return r;
  }
  return undefined;
}

/** Python's `\b([a-zA-Z_]\w*)\s*(?=\()` with Unicode \w and \s. */
const REWRITE_RE = new RegExp(`(?<![\\p{L}\\p{N}_])([a-zA-Z_][\\p{L}\\p{N}_]*)[${PY_SPACE_CLASS}]*(?=\\()`, 'gu');
