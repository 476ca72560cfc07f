// Test-only grader types for worker hand-off and preemption, registered in the main thread and
// (through services.options.workerModules) inside worker threads:
//   test_heavy_spin  cpu_heavy: busy-loops for `ms` (item.ms overrides; forever when < 0), scores 1;
//   test_exit        ends its worker thread (process.exit) when item.exit is true, else scores 1;
//   test_bad_result  returns metadata holding a function, which cannot be copied between threads.
import { z } from 'zod';
import { getGraderType, graderSchema, PURE, registerGraderType } from '../../dist/index.js';
import { isMainThread, threadId } from 'node:worker_threads';

if (!getGraderType('test_heavy_spin')) {
  registerGraderType({
    type: 'test_heavy_spin',
    summary: 'test only: spins the CPU (cpu_heavy)',
    schema: graderSchema({ ms: z.number() }),
    capabilities: PURE,
    cpu_heavy: true,
    build: (cfg) => (input) => {
      const ms = typeof input.item.ms === 'number' ? input.item.ms : cfg.ms;
      const end = ms < 0 ? Infinity : Date.now() + ms;
      while (Date.now() < end) {
        /* spin */
      }
      return { score: 1, metadata: { thread: threadId, main: isMainThread } };
    },
  });
  registerGraderType({
    type: 'test_exit',
    summary: 'test only: ends its worker thread when item.exit is true',
    schema: graderSchema({}),
    capabilities: PURE,
    build: () => (input) => {
      if (input.item.exit === true && !isMainThread) process.exit(3);
      return { score: 1 };
    },
  });
  registerGraderType({
    type: 'test_bad_result',
    summary: 'test only: returns metadata that cannot cross threads',
    schema: graderSchema({}),
    capabilities: PURE,
    build: () => () => ({ score: 1, metadata: { callback: () => 1 } }),
  });
}
