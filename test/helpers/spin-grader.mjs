// Test-only grader types, registered in the main thread and (through services.options.workerModules)
// inside `threads` workers: `test_spin` busy-loops for `ms` (or item.ms; forever when < 0) then scores 1.
import { z } from 'zod';
import { getGraderType, graderSchema, PURE, registerGraderType } from '../../dist/index.js';
import { threadId } from 'node:worker_threads';

if (!getGraderType('test_spin')) {
  registerGraderType({
    type: 'test_spin',
    summary: 'test only: spins the CPU',
    schema: graderSchema({ ms: z.number() }),
    capabilities: PURE,
    build: (cfg) => (input) => {
      const ms = typeof input.item.ms === 'number' ? input.item.ms : cfg.ms; // per-sample override
      const end = ms < 0 ? Infinity : Date.now() + ms;
      while (Date.now() < end) {
        /* spin */
      }
      return { score: 1, metadata: { thread: threadId } };
    },
  });
}
