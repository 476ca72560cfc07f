// `threads`: run a CPU-heavy grader (math, ifeval, similarity, tool_call, …) in a pool of worker
// threads, so the event loop stays free and all cores are used. The inner grader is validated at
// load like any child; its result passes through (metadata.inner_type names its type). With
// `timeout_ms`, a grade that overruns is killed with its worker — a hard limit even for a grader
// stuck in a loop. A sample that cannot be copied to a worker is an invalid result of its own.
// Its start-up is its pool's: the workers start and warm the inner grader (not this thread).
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import type { Result } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import type { Services } from '../../core/services.js';
import { GraderPool } from '../../workers/grader-pool.js';
import { outcomeOf, poolFailure } from '../../workers/outcome.js';

type Config = z.infer<typeof schema>;

/** The pool of graders built from this config with these services (one per config: inline graders rebuilt per request share it). */
function poolFor(cfg: Config, services: Services): GraderPool {
  const n = cfg.threads ?? availableParallelism();
  const batch = cfg.batch ?? 16;
  return services.get(
    `threads:${n}:${batch}:${JSON.stringify(cfg.grader)}`,
    () => new GraderPool({ config: cfg.grader, threads: n, batch, servicesOptions: services.options }),
    (p) => p.close(),
  );
}

const schema = graderSchema({
  grader: z.unknown(),
  /** Worker threads (default: the number of cores). */
  threads: z.number().int().min(1).max(256).optional(),
  /** Most samples handed to a worker per message (default 16; 1 isolates every sample). */
  batch: z.number().int().min(1).max(4096).optional(),
});

export const threads: GraderType<Config> = {
  type: 'threads',
  summary: 'run a CPU-heavy grader in a pool of worker threads (keeps the event loop free; killable on timeout)',
  schema,
  capabilities: PURE, // own; the registry adds the inner grader's
  // the workers build and warm the inner grader before they report ready
  warm: (cfg, { services }) => poolFor(cfg, services).started(),
  build(cfg, b) {
    if (cfg.grader === undefined) b.fail('grader', 'required sub-grader "grader" is missing');
    const inner = b.child(cfg.grader, 'grader', b.name); // validates the inner config at load
    return async (input, ctx) => {
      const pool = poolFor(cfg, ctx.services);
      let r: Result;
      try {
        // a sample that cannot cross to a worker (too deep, uncloneable) rejects with its reason
        r = await pool.grade(input, ctx.signal);
      } catch (e) {
        throw poolFailure(e);
      }
      return outcomeOf(r, { inner_type: inner.type }, true);
    };
  },
};
