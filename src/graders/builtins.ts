// Where each built-in grader type is defined, for loading only the families a config uses: the
// command line reads a config, imports the modules its types need, and builds it, instead of
// paying for every family at start-up (about a quarter of a second; the code family alone takes a
// tenth of that). ./index.ts registers every type at once (the library, the server, workers);
// test/core/builtins.test.ts checks that both list the same types.
import { getGraderType, registerGraderType, type BaseConfig, type GraderType } from '../core/registry.js';
import { addWorkerRegistrations } from '../workers/grader-pool.js';
// the preemption of cpu_heavy types (killable worker threads) in the main thread
import '../workers/preempt.js';

// worker threads (threads grader, preemption of cpu_heavy types) load every type from ./index.js
addWorkerRegistrations(new URL('./index.js', import.meta.url).href);

/** Each built-in type: the module that defines it (relative to this one) and its export. */
export const BUILTINS: Readonly<Record<string, readonly [module: string, exportName: string]>> = {
  string_check: ['./string_check/string-check.js', 'stringCheck'],
  code: ['./code/code.js', 'code'],
  python: ['./code/python-grader.js', 'pythonGrader'],
  ifeval: ['./ifeval/grader.js', 'ifeval'],
  tool_call: ['./tool_call/grader.js', 'toolCall'],
  bfcl_multi_turn: ['./bfcl_multi_turn/grader.js', 'bfclMultiTurn'],
  multi: ['./composite/multi.js', 'multi'],
  gate: ['./composite/gate.js', 'gate'],
  threads: ['./composite/threads.js', 'threads'],
  weighted_sum: ['./composite/weighted-sum.js', 'weightedSum'],
  tiers: ['./composite/tiers.js', 'tiers'],
  transform: ['./composite/transform.js', 'transform'],
  schedule: ['./composite/schedule.js', 'schedule'],
  majority_vote: ['./composite/majority-vote.js', 'majorityVote'],
  random: ['./composite/random.js', 'random'],
  overlong_penalty: ['./composite/overlong.js', 'overlongPenalty'],
  math: ['./math/grader.js', 'mathGrader'],
  format: ['./format/format.js', 'format'],
  text_similarity: ['./text_similarity/text-similarity.js', 'textSimilarity'],
  length: ['./length/length.js', 'length'],
  repetition: ['./length/repetition.js', 'repetition'],
  tau_bench: ['./tau_bench/grader.js', 'tauBench'],
  score_model: ['./judges/graders/score-model.js', 'scoreModel'],
  label_model: ['./judges/graders/label-model.js', 'labelModel'],
  pairwise: ['./judges/graders/pairwise.js', 'pairwise'],
  rubric: ['./judges/graders/rubric.js', 'rubric'],
  reference_verify: ['./judges/graders/reference-verify.js', 'referenceVerify'],
  reward_model: ['./judges/graders/reward-model.js', 'rewardModel'],
  prm: ['./prm/grader.js', 'prm'],
};

/** Every string under a key "type" in a config (grader nodes at any depth; more does no harm). */
export function typeNamesIn(config: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (depth > 200 || typeof config !== 'object' || config === null) return out;
  if (Array.isArray(config)) {
    for (const v of config) typeNamesIn(v, out, depth + 1);
    return out;
  }
  for (const [k, v] of Object.entries(config)) {
    if (k === 'type' && typeof v === 'string') out.add(v);
    else typeNamesIn(v, out, depth + 1);
  }
  return out;
}

/**
 * Registers the built-in types a config names (every built-in type when it names one that is
 * neither built in nor registered, so that the error lists them all). Idempotent.
 */
export async function importGraderTypesFor(config: unknown): Promise<void> {
  const names = [...typeNamesIn(config)];
  const all = names.length === 0 || names.some((n) => !Object.hasOwn(BUILTINS, n) && !getGraderType(n));
  const wanted = all ? Object.keys(BUILTINS) : names.filter((n) => Object.hasOwn(BUILTINS, n));
  await Promise.all(
    wanted.map(async (type) => {
      if (getGraderType(type)) return;
      const [module, exportName] = BUILTINS[type]!;
      const t = ((await import(module)) as Record<string, GraderType<BaseConfig> | undefined>)[exportName];
      if (t?.type !== type) throw new Error(`arbiter: ${module} defines no grader type "${type}" (export ${exportName})`);
      if (!getGraderType(type)) registerGraderType(t);
    }),
  );
}
