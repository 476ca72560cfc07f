// Worker-thread entry of the grader pool: builds graders from the JSON configs it is given (its
// own, once; others sent with a batch, cached by key) and grades each batch posted to it, replying
// with the results in order. It has its own services (sandbox pool, model clients). Every reply
// can be posted: a result that cannot be copied back becomes an invalid result saying why, and a
// config that fails to build becomes an invalid result for each sample of its batch. Start-up
// (core/startup.ts) happens before samples come: its own config is built and warmed before it
// reports ready, and the pool sends each config it is to hold warm (`warm`) before any sample.
import { parentPort, workerData } from 'node:worker_threads';
import type { Grader } from '../core/grader.js';
import { loadGrader } from '../core/registry.js';
import { GradeFailure, invalidResult, type Result } from '../core/result.js';
import { Services } from '../core/services.js';
import { warmGrader } from '../core/startup.js';
import type { GradeInput } from '../core/sample.js';
import { handoffFailure } from './grader-pool.js';

const { config, servicesOptions, registrations } = workerData as { config: unknown; servicesOptions: Record<string, unknown>; registrations: string[] };
// The registration modules (graders/builtins.js adds itself to the pool), then modules that register
// custom grader types (library users' own types must exist here too). A registration module that
// exports `importGraderTypesFor(config)` is asked to register the types each config names before
// it is built: the built-in list imports just those families, as the main thread did.
const modules = Array.isArray(servicesOptions.workerModules) ? (servicesOptions.workerModules as string[]) : [];
type Prepare = (config: unknown) => Promise<void>;
const prepares: Prepare[] = [];
for (const m of [...registrations, ...modules]) {
  const mod = (await import(m)) as { importGraderTypesFor?: unknown };
  if (typeof mod.importGraderTypesFor === 'function') prepares.push(mod.importGraderTypesFor as Prepare);
}
async function prepare(cfg: unknown): Promise<void> {
  for (const p of prepares) await p(cfg);
}
if (config !== undefined) await prepare(config);
const own = config === undefined ? undefined : loadGrader(config);
const services = new Services(servicesOptions);
if (own) await warmGrader(own, services);

/** Graders built from configs sent with batches, most recently used last. */
const cache = new Map<string, Grader>();
const CACHE_SIZE = 64;

async function graderFor(key: string | undefined, cfg: unknown): Promise<Grader> {
  if (key === undefined) {
    if (!own) throw new GradeFailure('internal_error', 'the grader worker got a batch without a grader config');
    return own;
  }
  let g = cache.get(key);
  if (g) cache.delete(key);
  else {
    await prepare(cfg);
    g = loadGrader(cfg);
  }
  cache.set(key, g);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return g;
}

function failed(e: unknown, name = 'grader', type = 'unknown'): Result {
  const f = e instanceof GradeFailure ? e : new GradeFailure('internal_error', e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  return invalidResult(f.kind, f.message, { grader: name, type });
}

/** Posts the results; any result that cannot be cloned is replaced by an invalid one naming why. */
function reply(results: Result[]): void {
  try {
    parentPort!.postMessage({ results });
    return;
  } catch {
    // find the results at fault below
  }
  const safe = results.map((r) => {
    try {
      structuredClone(r);
      return r;
    } catch (e) {
      return failed(handoffFailure(e, 'the grade result'), r?.metadata?.grader, r?.metadata?.type);
    }
  });
  try {
    parentPort!.postMessage({ results: safe });
  } catch (e) {
    parentPort!.postMessage({ results: results.map(() => failed(handoffFailure(e, 'the grade result'))) });
  }
}

/** Builds and warms a config the pool holds warm; answers `warmed` whatever happens (a failure shows again on its samples). */
async function warm(key: string, cfg: unknown): Promise<void> {
  let items: { what: string; ms: number }[] = [];
  try {
    items = (await warmGrader(await graderFor(key, cfg), services)).items;
  } catch {
    // graderFor failed: each sample of this config gets the reason when it comes
  }
  parentPort!.postMessage({ warmed: key, items });
}

parentPort!.on('message', async (m: { inputs: GradeInput[]; key?: string; config?: unknown; warm?: string; forget?: string }) => {
  if (typeof m.warm === 'string') return warm(m.warm, m.config);
  if (typeof m.forget === 'string') {
    cache.delete(m.forget);
    return;
  }
  let grader: Grader;
  try {
    grader = await graderFor(m.key, m.config);
  } catch (e) {
    reply(m.inputs.map(() => failed(e)));
    return;
  }
  void Promise.all(m.inputs.map((input) => grader.grade(input, { services }).catch((e: unknown) => failed(e, grader.name, grader.type)))).then(reply);
});
parentPort!.postMessage({ ready: true });
