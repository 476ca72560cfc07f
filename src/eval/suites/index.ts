// The one list of eval suites behind `arbiter eval <suite>`: each line names a suite and the module
// that declares it (its `suite` export: name, summary, the shared options it takes, its own options,
// its run function; see ./common.ts). Adding a suite is its module plus one line here. Suites load
// on demand: `arbiter eval bon FILE` imports ./bon.ts alone; help lists them all.
// test/eval/suites.contract.test.ts runs the suite contract over every line.
import type { Suite } from './common.js';

export const SUITE_MODULES = {
  prmbench: () => import('./prmbench.js'),
  judgebench: () => import('./judgebench.js'),
  llmbar: () => import('./llmbar.js'),
  'rm-bench': () => import('./rmbench.js'),
  preference: () => import('./preference.js'),
  agreement: () => import('./agreement.js'),
  calibration: () => import('./calibration.js'),
  bon: () => import('./bon.js'),
  overopt: () => import('./overopt.js'),
  grounding: () => import('./grounding.js'),
} satisfies Record<string, () => Promise<{ suite: Suite }>>;

/** Every suite's name, in the order help lists them. */
export const SUITE_NAMES: readonly string[] = Object.keys(SUITE_MODULES);

/** The suite declared under `name` (undefined for a name not on the list). */
export async function loadSuite(name: string): Promise<Suite | undefined> {
  if (!Object.hasOwn(SUITE_MODULES, name)) return undefined;
  const { suite } = await SUITE_MODULES[name as keyof typeof SUITE_MODULES]();
  if (suite.name !== name) throw new Error(`arbiter: the module listed for eval suite "${name}" declares "${suite.name}"`);
  return suite;
}

/** The suites named (all by default), in list order. */
export async function loadSuites(names: readonly string[] = SUITE_NAMES): Promise<Suite[]> {
  const out = await Promise.all(SUITE_NAMES.filter((n) => names.includes(n)).map(loadSuite));
  return out.filter((s): s is Suite => s !== undefined);
}
