// Test-only grader type, registered in the main thread and (through services.options.workerModules)
// in worker threads: `test_slow_warm` is cpu_heavy, its warm-up takes `warm_ms` (an injected delay,
// standing for a tokenizer load), and a grade spins item.ms (forever when < 0) then scores 1.
import { z } from 'zod';
import { getGraderType, graderSchema, PURE, registerGraderType } from '../../dist/index.js';

if (!getGraderType('test_slow_warm')) {
  registerGraderType({
    type: 'test_slow_warm',
    summary: 'test only: a slow warm-up, then a spin',
    schema: graderSchema({ warm_ms: z.number() }),
    capabilities: PURE,
    cpu_heavy: true,
    warm: (cfg) => new Promise((r) => setTimeout(r, cfg.warm_ms)),
    build: () => (input) => {
      const ms = typeof input.item.ms === 'number' ? input.item.ms : 0;
      const end = ms < 0 ? Infinity : Date.now() + ms;
      while (Date.now() < end) {
        /* spin */
      }
      return { score: 1 };
    },
  });
}
