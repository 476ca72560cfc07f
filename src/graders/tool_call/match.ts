// Matches a model's calls against the accepted calls: the counts must agree and every accepted
// call must be matched to a distinct model call that passes (order-free, for parallel calls;
// single and multiple are the one-call case). Partial credit pairs calls greedily
// by best partial score and divides by the larger of the two counts.
import { checkCall, sameFunction, type CallCheck } from './check.js';
import type { AcceptedCall, FunctionSchema, ToolCall } from './types.js';

export interface MatchResult {
  exact: boolean;
  partial: number;
  /** The first mismatch, when not exact. */
  reason?: string;
  kind?: string;
  /** Per accepted call: the index of the model call matched to it, or -1. */
  pairs: number[];
}

function findSchema(functions: FunctionSchema[] | undefined, name: string): FunctionSchema | undefined {
  return functions?.find((f) => f.name === name) ?? functions?.find((f) => sameFunction(name, f.name));
}

export function matchCalls(calls: ToolCall[], answers: AcceptedCall[], functions: FunctionSchema[] | undefined): MatchResult {
  if (answers.length === 0) {
    return calls.length === 0
      ? { exact: true, partial: 1, pairs: [] }
      : { exact: false, partial: 0, kind: 'unexpected_call', reason: `no call was expected, got ${calls.length} (first: ${calls[0]!.name})`, pairs: [] };
  }
  const schemas = answers.map((a) => findSchema(functions, a.name));
  // Partial credit: greedy best pairs.
  const grid: CallCheck[][] = answers.map((a, i) => calls.map((c) => checkCall(c, a, schemas[i])));
  const usedA = new Set<number>();
  const usedC = new Set<number>();
  let partialSum = 0;
  const cells = grid.flatMap((row, i) => row.map((r, j) => ({ i, j, p: r.partial }))).sort((x, y) => y.p - x.p || x.i - y.i || x.j - y.j);
  for (const { i, j, p } of cells) {
    if (p <= 0 || usedA.has(i) || usedC.has(j)) continue;
    usedA.add(i);
    usedC.add(j);
    partialSum += p;
  }
  const partial = partialSum / Math.max(answers.length, calls.length);
  if (calls.length !== answers.length) {
    return {
      exact: false,
      partial,
      kind: 'wrong_count',
      reason: `wrong number of calls: expected ${answers.length}, got ${calls.length}`,
      pairs: answers.map(() => -1),
    };
  }
  // Exact: an order-free perfect matching of accepted calls to model calls (augmenting paths).
  // BFCL matches greedily in answer order, which can miss a matching that exists when one
  // accepted call admits several of the model's calls; whenever BFCL accepts, this accepts too.
  const owner = calls.map(() => -1);
  const tryAssign = (i: number, seen: Set<number>): boolean => {
    for (let k = 0; k < calls.length; k++) {
      if (!grid[i]![k]!.ok || seen.has(k)) continue;
      seen.add(k);
      if (owner[k] === -1 || tryAssign(owner[k]!, seen)) {
        owner[k] = i;
        return true;
      }
    }
    return false;
  };
  const unmatched = answers.map((_, i) => i).filter((i) => !tryAssign(i, new Set()));
  if (unmatched.length) {
    // Report the first accepted call left over by a maximum matching, against the closest
    // model call that was left over too.
    const i = unmatched[0]!;
    const free = calls.map((_, k) => k).filter((k) => owner[k] === -1);
    const best = free.sort((x, y) => grid[i]![y]!.partial - grid[i]![x]!.partial || x - y)[0]!;
    const r = grid[i]![best]!;
    const prefix = answers.length > 1 ? `no call matches expected call ${i} (${answers[i]!.name}); closest: ` : '';
    return { exact: false, partial: Math.min(partial, 1 - 1e-9), kind: r.kind, reason: prefix + r.message, pairs: answers.map(() => -1) };
  }
  const pairs = answers.map((_, i) => owner.indexOf(i));
  return { exact: true, partial: 1, pairs };
}
