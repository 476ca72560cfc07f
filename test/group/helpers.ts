// Test helpers for group rewards: a `test_value` grader type that scores item[field] (so sub-scores
// are exact numbers chosen by the test), and a file scratch directory.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { getGraderType, GradeFailure, graderSchema, registerGraderType } from '../../dist/index.js';

export function registerValueType(): void {
  if (getGraderType('test_value')) return;
  registerGraderType({
    type: 'test_value',
    summary: 'test: scores the number item[field]',
    schema: graderSchema({ field: z.string() }),
    build: (cfg: { field: string }) => (input: { item: Record<string, unknown> }) => {
      const v = input.item[cfg.field];
      if (typeof v !== 'number') throw new GradeFailure('bad_input', `item.${cfg.field} is not a number`);
      return { score: v };
    },
  } as never);
}

export const value = (field: string, name?: string) => ({ type: 'test_value', field, ...(name ? { name } : {}) });

export function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'arbiter-group-'));
}
