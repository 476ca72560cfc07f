// A BFCL entry's ground truth as a policy's answers: each ground-truth call rewritten with keyword
// arguments (positional ones named from the simulated method's parameters), as an OpenAI tool call
// with Python-exact JSON arguments (5.0 stays a float) or as prompting text; one response per
// user turn with all its calls, then a reply without calls to end the turn.
import { API_CLASSES } from '../../dist/envs/bfcl_multi_turn/apis/executor.js';
import { jsonDumps, pyRepr } from '../../dist/py/format.js';
import { PyDict, PyTuple } from '../../dist/py/values.js';
import { parsePythonExpr } from '../../dist/extract/python-call.js';
import { dataPath } from '../helpers/data.js';

// BFCL's data (README "Benchmark data"): this file fails at once, naming the path, when it is absent
dataPath('bfcl/multi_turn/func_doc');

function literal(n: any): any {
  switch (n.k) {
    case 'int':
    case 'float':
    case 'str':
    case 'const':
      return n.v;
    case 'list':
      return n.items.map(literal);
    case 'tuple':
      return new PyTuple(n.items.map(literal));
    case 'dict': {
      const d = new PyDict();
      for (const [k, v] of n.entries) d.set(literal(k), literal(v));
      return d;
    }
    case 'unary':
      if (n.op === '-') {
        const v = literal(n.operand);
        return typeof v === 'bigint' ? -v : -v;
      }
      throw new Error(`unary ${n.op}`);
    default:
      throw new Error(`not a literal: ${n.k}`);
  }
}

function paramsOf(name: string, classes: string[]): string[] {
  let owner: any;
  for (const c of classes) if (API_CLASSES[c]?.methods[name]) owner = API_CLASSES[c]!.methods[name];
  if (!owner) throw new Error(`no method ${name}`);
  return owner.params.map((p: any) => (typeof p === 'string' ? p : p[0]));
}

/** One ground-truth call as {name, kwargs} (a PyDict). */
export function keywordCall(call: string, classes: string[]): { name: string; kwargs: any } {
  const ast: any = parsePythonExpr(call);
  if (ast.k !== 'call' || ast.func.k !== 'name') throw new Error(`not a simple call: ${call}`);
  const name = ast.func.id;
  const params = paramsOf(name, classes);
  const kwargs = new PyDict();
  ast.args.forEach((a: any, i: number) => kwargs.set(params[i]!, literal(a)));
  for (const [k, v] of ast.keywords) kwargs.set(k, literal(v));
  return { name, kwargs };
}

export function toolCallOf(call: string, classes: string[], id: string) {
  const { name, kwargs } = keywordCall(call, classes);
  return { id, name, arguments: jsonDumps(kwargs) };
}

export function promptingText(calls: string[], classes: string[]): string {
  return `[${calls
    .map((c) => {
      const { name, kwargs } = keywordCall(c, classes);
      return `${name}(${kwargs
        .entries()
        .map(([k, v]: [string, any]) => `${k}=${pyRepr(v)}`)
        .join(', ')})`;
    })
    .join(', ')}]`;
}
