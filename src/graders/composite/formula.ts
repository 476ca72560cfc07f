// `calculate_output` formulas of multi graders (and weighted_sum's formula weights). Parsed with
// mathjs's expression parser, then checked against a whitelist (numbers, variables, + - * / ^,
// comparisons, ?:, and a few functions) and compiled into a plain closure, so nothing else in
// mathjs is reachable from a config file. Group functions (group_mean(x, cond), group_std,
// group_count, group_max, group_min, group_sum, rank) aggregate over the other responses to the
// same prompt: they evaluate only with a GroupScope (the group stage of a root grader) and refuse
// with a FormulaError otherwise. mathjs is required lazily (it costs ~1 s to load).
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
};

/** Functions over the group (see GROUP_FUNCTION_HELP); each takes a per-member expression. */
export const GROUP_FUNCTIONS = ['group_mean', 'group_std', 'group_sum', 'group_max', 'group_min', 'group_count', 'rank'] as const;
type GroupFn = (typeof GROUP_FUNCTIONS)[number];
const isGroupFn = (n: string): n is GroupFn => (GROUP_FUNCTIONS as readonly string[]).includes(n);

export type Env = Record<string, number>;

/** The members of one group (their variables), with the group aggregates computed so far. */
export interface GroupScope {
  readonly members: readonly Env[];
  /** Aggregate values by call text (shared by every member of the group). */
  readonly values: Map<string, number>;
}

export function groupScope(members: readonly Env[]): GroupScope {
  return { members, values: new Map() };
}

export interface Formula {
  source: string;
  variables: string[];
  /** The group functions it calls (empty: it needs no group). */
  groupCalls: string[];
  /**
   * The value for one member. A formula with group functions needs `group` (the member's whole
   * group, itself included); `seen` receives the value of each group call for this member.
   */
  evaluate(env: Env, group?: GroupScope, seen?: Record<string, number>): number;
}

export class FormulaError extends Error {}

type Fn = (env: Env, g?: GroupScope, seen?: Record<string, number>) => number;

interface Compiling {
  vars: Set<string>;
  groupCalls: string[];
  /** Inside a group function's argument (group functions do not nest). */
  inGroup?: string;
}

const truthy = (x: number) => x !== 0 && !Number.isNaN(x);

function compileGroupCall(name: GroupFn, node: MathNode, argNodes: MathNode[], c: Compiling): Fn {
  const text = node.toString();
  if (c.inGroup) throw new FormulaError(`group functions do not nest: ${text} is inside ${c.inGroup}`);
  const inner: Compiling = { ...c, inGroup: text };
  const args = argNodes.map((a) => compileNode(a, inner));
  c.groupCalls.push(text);
  const needScope = (g: GroupScope | undefined): GroupScope => {
    if (!g)
      throw new FormulaError(
        `${text} aggregates over the responses to one prompt, so this formula grades groups only: use POST /v1/groups, the library's gradeGroup or arbiter score --group-by`,
      );
    return g;
  };
  if (name === 'rank') {
    if (args.length !== 1) throw new FormulaError(`rank takes one argument (the value to rank by), got ${args.length}: ${text}`);
    const x = args[0]!;
    return (env, g, seen) => {
      const scope = needScope(g);
      const own = x(env);
      let above = 0;
      for (const m of scope.members) if (x(m) > own) above++;
      const v = above + 1;
      if (seen) seen[text] = v;
      return v;
    };
  }
  if (name === 'group_count') {
    if (args.length > 1) throw new FormulaError(`group_count takes at most one argument (a condition), got ${args.length}: ${text}`);
    const cond = args[0];
    return (_env, g, seen) => {
      const scope = needScope(g);
      let v = scope.values.get(text);
      if (v === undefined) {
        v = cond ? scope.members.filter((m) => truthy(cond(m))).length : scope.members.length;
        scope.values.set(text, v);
      }
      if (seen) seen[text] = v;
      return v;
    };
  }
  if (args.length < 1 || args.length > 3)
    throw new FormulaError(`${name} takes a value, an optional condition and an optional default for an empty set, got ${args.length} argument(s): ${text}`);
  const [x, cond, dflt] = args as [Fn, Fn | undefined, Fn | undefined];
  const least = name === 'group_std' ? 2 : 1;
  return (env, g, seen) => {
    const scope = needScope(g);
    let v = scope.values.get(text);
    if (v === undefined) {
      const xs: number[] = [];
      for (const m of scope.members) if (!cond || truthy(cond(m))) xs.push(x(m));
      if (xs.length < least) {
        if (!dflt) {
          const set = cond ? `${xs.length} of the group's ${scope.members.length} responses satisfy the condition` : `the group has ${xs.length} response(s)`;
          throw new FormulaError(
            `${text} is undefined: ${set}, and ${name} needs at least ${least}; guard it (group_count(...) > ${least - 1} ? ... : ...) or give a default as the third argument`,
          );
        }
        v = dflt(env, g);
      } else v = aggregate(name, xs);
      scope.values.set(text, v);
    }
    if (seen) seen[text] = v;
    return v;
  };
}

function aggregate(name: Exclude<GroupFn, 'rank' | 'group_count'>, xs: number[]): number {
  switch (name) {
    case 'group_sum':
      return xs.reduce((a, x) => a + x, 0);
    case 'group_mean':
      return xs.reduce((a, x) => a + x, 0) / xs.length;
    case 'group_max':
      return Math.max(...xs);
    case 'group_min':
      return Math.min(...xs);
    case 'group_std': {
      // unbiased (n - 1), as torch.std and weighted_sum's normalize "group"
      const m = xs.reduce((a, x) => a + x, 0) / xs.length;
      return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
    }
  }
}

function compileNode(node: MathNode, c: Compiling): Fn {
  const vars = c.vars;
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
      return compileNode(n.content as MathNode, c);
    case 'OperatorNode': {
      const op = n.op as string;
      const args = (n.args as MathNode[]).map((a) => compileNode(a, c));
      if (args.length === 1) {
        const a = args[0]!;
        if (op === '-') return (env, g, s) => -a(env, g, s);
        if (op === '+') return a;
        if (op === 'not') return (env, g, s) => Number(!a(env, g, s));
        throw new FormulaError(`operator "${op}" is not allowed`);
      }
      if ((op === 'and' || op === 'or') && args.length === 2) {
        // short-circuit, so `group_count(acc == 1) > 0 and group_mean(x, acc == 1) > 0.5` is safe
        const [a, b] = args as [Fn, Fn];
        return op === 'and'
          ? (env, g, s) => Number(Boolean(a(env, g, s)) && Boolean(b(env, g, s)))
          : (env, g, s) => Number(Boolean(a(env, g, s)) || Boolean(b(env, g, s)));
      }
      const f = BINARY[op];
      if (!f || args.length !== 2) throw new FormulaError(`operator "${op}" is not allowed (use + - * / ^ and comparisons)`);
      const [a, b] = args as [Fn, Fn];
      return (env, g, s) => f(a(env, g, s), b(env, g, s));
    }
    case 'ConditionalNode': {
      const cond = compileNode(n.condition as MathNode, c);
      const t = compileNode(n.trueExpr as MathNode, c);
      const f = compileNode(n.falseExpr as MathNode, c);
      return (env, g, s) => (cond(env, g, s) ? t(env, g, s) : f(env, g, s));
    }
    case 'FunctionNode': {
      const fnNode = n.fn as MathNode & { name?: string };
      const name = fnNode.type === 'SymbolNode' ? fnNode.name! : '';
      if (isGroupFn(name)) return compileGroupCall(name, node, n.args as MathNode[], c);
      const fn = Object.hasOwn(FORMULA_FUNCTIONS, name) ? FORMULA_FUNCTIONS[name] : undefined;
      if (!fn)
        throw new FormulaError(`function "${name || '?'}" is not allowed (allowed: ${[...Object.keys(FORMULA_FUNCTIONS), ...GROUP_FUNCTIONS].join(', ')})`);
      const args = (n.args as MathNode[]).map((a) => compileNode(a, c));
      if (args.length === 0) throw new FormulaError(`function "${name}" needs arguments`);
      return (env, g, s) => fn(...args.map((a) => a(env, g, s)));
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
  const c: Compiling = { vars: new Set<string>(), groupCalls: [] };
  const fn = compileNode(ast, c);
  return { source, variables: [...c.vars], groupCalls: c.groupCalls, evaluate: fn };
}
