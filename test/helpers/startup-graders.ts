// Test-only grader type for start-up (core/startup.ts): `test_warm` has a warm-up that resolves only
// when the test calls `releaseWarm()` (or never), and counts its warm-ups and its grades, so a test
// can issue grades during start-up and see when their budgets start.
import { z } from 'zod';
import { getGraderType, graderSchema, PURE, registerGraderType } from '../../dist/index.js';

export const counts = { warms: 0, grades: 0 };
let release: () => void = () => {};
let gate = new Promise<void>((r) => (release = r));

/** Ends every pending (and future) warm-up of `test_warm`. */
export function releaseWarm(): void {
  release();
}

/** A fresh gate: warm-ups started from now on wait for the next releaseWarm(). */
export function holdWarm(): void {
  gate = new Promise<void>((r) => (release = r));
}

const schema = graderSchema({ score: z.number() });

if (!getGraderType('test_warm')) {
  registerGraderType<z.infer<typeof schema>>({
    type: 'test_warm',
    summary: 'test only: a warm-up the test releases',
    schema,
    capabilities: PURE,
    warm: async () => {
      counts.warms++;
      await gate;
      return [{ what: 'test resource', ms: 1 }];
    },
    build: (cfg) => () => {
      counts.grades++;
      return { score: cfg.score };
    },
  });
}
