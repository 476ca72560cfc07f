// `calculate_output` formulas of multi graders. Parsed with mathjs's expression parser, then
// checked against a whitelist (numbers, variables, + - * / ^, comparisons, ?:, and a few functions)
// and compiled into a plain closure, so nothing else in mathjs is reachable from a config file.
// mathjs is required lazily (it costs ~1 s to load), so commands without formulas start fast.
import type { MathNode } from 'mathjs';
import { lazyRequire } from '../../core/lazy.js';

// mathjs takes about a second to import, so it is loaded on the first formula, not at startup.
const mathjs = lazyRequire<typeof import('mathjs')>('mathjs');
const parse = (expr: string): MathNode => mathjs().parse(expr);

export const FORMULA_FUNCTIONS: Record<string, (...a: number[]) => number> = {
  min: (...a) => Math.min(...a),
  max: (...a) => Math.max(...a),
  abs: (x) => Math.abs(x!),
  floor: (x) => Math.floor(x!),
  ceil: (x) => Math.ceil(x!),
  round: (x) => Math.round(x!),
  exp: (x) => Math.exp(x!),
  sqrt: (x) => Math.sqrt(x!),
  log: (x, b) => (b === undefined ? Math.log(x!) : Math.log(x!) / Math.log(b)),
  clamp: (x, lo, hi) => Math.min(Math.max(x!, lo!), hi!),
};

const BINARY: Record<string, (a: number, b: number) => number> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '^': (a, b) => a ** b,
  '>': (a, b) => Number(a > b),
  '>=': (a, b) => Number(a >= b),
  '<': (a, b) => Number(a < b),
  '<=': (a, b) => Number(a <= b),
  '==': (a, b) => Number(a === b),
  '!=': (a, b) => Number(a !== b),
  and: (a, b) => Number(Boolean(a) && Boolean(b)),
  or: (a, b) => Number(Boolean(a) || Boolean(b)),
};

export type Env = Record<string, number>;
export interface Formula {
  source: string;
  variables: string[];
  evaluate(env: Env): number;
}

export class FormulaError extends Error {}

type Fn = (env: Env) => number;

function compileNode(node: MathNode, vars: Set<string>): Fn {
  const n = node as MathNode & Record<string, unknown>;
  switch (node.type) {
    case 'ConstantNode': {
      const v = n.value;
      if (typeof v !== 'number') throw new FormulaError(`only numeric constants are allowed, got ${JSON.stringify(v)}`);
      return () => v;
    }
    case 'SymbolNode': {
      const name = n.name as string;
      if (name === 'pi') return () => Math.PI;
      if (name === 'e') return () => Math.E;
      vars.add(name);
      return (env) => {
        const v = env[name];
        if (v === undefined) throw new FormulaError(`unknown variable "${name}"`);
        return v;
      };
    }
    case 'ParenthesisNode':
      return compileNode(n.content as MathNode, vars);
    case 'OperatorNode': {
      const op = n.op as string;
      const args = (n.args as MathNode[]).map((a) => compileNode(a, vars));
      if (args.length === 1) {
        const a = args[0]!;
        if (op === '-') return (env) => -a(env);
        if (op === '+') return a;
        if (op === 'not') return (env) => Number(!a(env));
        throw new FormulaError(`operator "${op}" is not allowed`);
      }
      const f = BINARY[op];
      if (!f || args.length !== 2) throw new FormulaError(`operator "${op}" is not allowed (use + - * / ^ and comparisons)`);
      const [a, b] = args as [Fn, Fn];
      return (env) => f(a(env), b(env));
    }
    case 'ConditionalNode': {
      const c = compileNode(n.condition as MathNode, vars);
      const t = compileNode(n.trueExpr as MathNode, vars);
      const f = compileNode(n.falseExpr as MathNode, vars);
      return (env) => (c(env) ? t(env) : f(env));
    }
    case 'FunctionNode': {
      const fnNode = n.fn as MathNode & { name?: string };
      const name = fnNode.type === 'SymbolNode' ? fnNode.name! : '';
      const fn = FORMULA_FUNCTIONS[name];
      if (!fn) throw new FormulaError(`function "${name || '?'}" is not allowed (allowed: ${Object.keys(FORMULA_FUNCTIONS).join(', ')})`);
      const args = (n.args as MathNode[]).map((a) => compileNode(a, vars));
      if (args.length === 0) throw new FormulaError(`function "${name}" needs arguments`);
      return (env) => fn(...args.map((a) => a(env)));
    }
    default:
      throw new FormulaError(`${node.type.replace(/Node$/, '').toLowerCase()} expressions are not allowed in formulas`);
  }
}

/** Parses and checks a formula; throws FormulaError with a readable message. */
export function compileFormula(source: string): Formula {
  if (source.length > 10_000) throw new FormulaError('formula is longer than 10000 characters');
  let ast: MathNode;
  try {
    ast = parse(source);
  } catch (e) {
    throw new FormulaError(`cannot parse formula: ${(e as Error).message}`);
  }
  const vars = new Set<string>();
  const fn = compileNode(ast, vars);
  return { source, variables: [...vars], evaluate: fn };
}
