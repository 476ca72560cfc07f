// The one list of built-in grader types: each line names a type and the module that declares it
// (a GraderType export carrying its schema, capabilities, build and cpu_heavy). Adding a type is
// its module plus one line in BUILTINS; everything else derives from this list:
//   - ./index.ts (`arbiter/graders`, the library, the server, `arbiter types`) registers them all;
//   - a command that reads a config file imports only the modules its types need (a family costs
//     up to a tenth of a second at start-up; all of them about a quarter);
//   - worker threads (the `threads` grader, the killable workers of cpu_heavy types) import this
//     module and, for each config they are given, the types it names: the same as the main thread.
// Importing this module installs the preemption of cpu_heavy types in the main thread, so it
// holds whichever entry point registered the types. test/core/builtins.test.ts checks the list.
import { getGraderType, registerGraderType, type BaseConfig, type GraderType } from '../core/registry.js';
import { addWorkerRegistrations } from '../workers/grader-pool.js';
// the preemption of cpu_heavy types (killable worker threads) in the main thread
import '../workers/preempt.js';

/** Each built-in type and the import of the module that declares it. */
export const BUILTINS = {
  string_check: () => import('./string_check/string-check.js'),
  code: () => import('./code/code.js'),
  python: () => import('./code/python-grader.js'),
  ifeval: () => import('./ifeval/grader.js'),
  tool_call: () => import('./tool_call/grader.js'),
  bfcl_multi_turn: () => import('../envs/bfcl_multi_turn/grader.js'),
  multi: () => import('./composite/multi.js'),
  gate: () => import('./composite/gate.js'),
  threads: () => import('./composite/threads.js'),
  weighted_sum: () => import('./composite/weighted-sum.js'),
  tiers: () => import('./composite/tiers.js'),
  transform: () => import('./composite/transform.js'),
  schedule: () => import('./composite/schedule.js'),
  majority_vote: () => import('./composite/majority-vote.js'),
  random: () => import('./composite/random.js'),
  overlong_penalty: () => import('./composite/overlong.js'),
  math: () => import('./math/grader.js'),
  format: () => import('./format/format.js'),
  text_similarity: () => import('./text_similarity/text-similarity.js'),
  length: () => import('./length/length.js'),
  repetition: () => import('./length/repetition.js'),
  tau_bench: () => import('../envs/tau_bench/grader.js'),
  score_model: () => import('./judges/graders/score-model.js'),
  label_model: () => import('./judges/graders/label-model.js'),
  pairwise: () => import('./judges/graders/pairwise.js'),
  rubric: () => import('./judges/graders/rubric.js'),
  reference_verify: () => import('./judges/graders/reference-verify.js'),
  reward_model: () => import('./judges/graders/reward-model.js'),
  prm: () => import('./prm/grader.js'),
  reward_machine: () => import('./trajectory/reward-machine.js'),
  count_bonus: () => import('./trajectory/counts.js'),
  episodic_bonus: () => import('./trajectory/counts.js'),
  rnd_bonus: () => import('./trajectory/rnd.js'),
  feature: () => import('./feature/feature.js'),
  gui_grounding: () => import('./gui_grounding/grader.js'),
} satisfies Record<string, () => Promise<object>>;

export type BuiltinType = keyof typeof BUILTINS;

// worker threads import this module (and then the types each config names: importGraderTypesFor)
addWorkerRegistrations(import.meta.url);

function isGraderType(v: unknown): v is GraderType<BaseConfig> {
  const t = v as Partial<GraderType<BaseConfig>> | null;
  return typeof t === 'object' && t !== null && typeof t.type === 'string' && typeof t.build === 'function' && typeof t.schema === 'object';
}

/** The GraderType a module exports under `type` (exactly one export declares it). */
export function declaredType(module: Record<string, unknown>, type: string, where: string): GraderType<BaseConfig> {
  const found = Object.values(module).filter((v): v is GraderType<BaseConfig> => isGraderType(v) && v.type === type);
  if (found.length !== 1) {
    throw new Error(`arbiter: ${where} must export exactly one grader type "${type}", found ${found.length}`);
  }
  return found[0]!;
}

/** Imports and registers built-in types (all of them by default); skips those already registered. */
export async function registerBuiltinTypes(names: Iterable<string> = Object.keys(BUILTINS)): Promise<void> {
  await Promise.all(
    [...names].map(async (type) => {
      if (getGraderType(type) || !Object.hasOwn(BUILTINS, type)) return;
      const t = declaredType((await BUILTINS[type as BuiltinType]()) as Record<string, unknown>, type, `the module of built-in type "${type}"`);
      if (!getGraderType(type)) registerGraderType(t);
    }),
  );
}

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
 * neither built in nor registered, so that the error lists them all). Idempotent. Worker threads
 * call it for each config they build (src/workers/grader-worker.ts).
 */
export async function importGraderTypesFor(config: unknown): Promise<void> {
  const names = [...typeNamesIn(config)];
  const all = names.length === 0 || names.some((n) => !Object.hasOwn(BUILTINS, n) && !getGraderType(n));
  await registerBuiltinTypes(all ? Object.keys(BUILTINS) : names);
}
