// One set of option names for reading an answer out of a model output, shared by every grader
// (docs/extract.md): `extract: {think, from}` — `think` says whether a reasoning block is
// stripped first, `from` where the answer is read (each grader lists the sources it supports) —
// plus the shared names for drifting options (`max_chars`, `max_bytes`, `partial_credit`,
// `input`) and today's old names as deprecated aliases mapping exactly to the new settings.
import { z } from 'zod';
import type { FieldAlias } from '../core/aliases.js';
import type { ThinkMode } from './think.js';

export const THINK_MODES = ['strip', 'keep'] as const;

/** The `extract` option of a grader whose answer can be read from the sources `from`. */
export function extractSchema<F extends readonly [string, ...string[]]>(from: F) {
  return z
    .strictObject({
      /** `strip`: drop a leading reasoning block first (one that never closes means no answer); `keep`: read the text as is. */
      think: z.enum(THINK_MODES).optional(),
      /** Where the answer is read from (the sources this grader supports). */
      from: z.enum(from).optional(),
    })
    .optional();
}

export interface ExtractSettings<F extends string> {
  think: ThinkMode;
  from: F;
}

/** The effective settings: what the config says, else the grader's defaults. */
export function resolveExtract<F extends string>(
  cfg: { think?: ThinkMode | undefined; from?: F | undefined } | undefined,
  defaults: ExtractSettings<F>,
): ExtractSettings<F> {
  return { think: cfg?.think ?? defaults.think, from: cfg?.from ?? defaults.from };
}

const isString = (v: unknown): boolean => typeof v === 'string';

/** math `skip_think: true|false` = `extract.think: strip|keep`. */
export const SKIP_THINK_ALIAS: FieldAlias = {
  from: 'skip_think',
  to: 'extract.think',
  values: [
    [true, 'strip'],
    [false, 'keep'],
  ],
};

/** code `extract: "auto"|"none"` (the string form) = `extract.from: "fenced"|"whole"`. */
export const CODE_EXTRACT_ALIAS: FieldAlias = {
  from: 'extract',
  to: 'extract.from',
  when: isString,
  values: [
    ['auto', 'fenced'],
    ['none', 'whole'],
  ],
};

/** format (json) `extract: "whole"|"fenced"` (the string form) = `extract.from: "whole"|"fenced"`. */
export const FORMAT_EXTRACT_ALIAS: FieldAlias = {
  from: 'extract',
  to: 'extract.from',
  when: isString,
  values: [
    ['whole', 'whole'],
    ['fenced', 'fenced'],
  ],
};

/** A renamed field whose values are unchanged (`max_input_chars` -> `max_chars`). */
export function renamed(from: string, to: string): FieldAlias {
  return { from, to };
}

/** An all-or-nothing / fraction switch under another name: `values` maps the old values to `partial_credit` true/false. */
export function partialCreditAlias(from: string, allOrNothing: string, fraction: string): FieldAlias {
  return {
    from,
    to: 'partial_credit',
    values: [
      [allOrNothing, false],
      [fraction, true],
    ],
  };
}

/** `partial_credit: true` scores the fraction of checks passed; false (default) 1 only when all pass. */
export const partialCreditField = z.boolean().optional();
