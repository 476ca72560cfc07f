// Shared types and kwargs readers for the IFEval instruction checkers.
import type { DetectLanguage } from './language.js';

export interface CheckContext {
  detectLanguage: DetectLanguage;
}

/** Decides whether one response follows one (configured) instruction. */
export type Check = (response: string, ctx: CheckContext) => boolean;

export type Kwargs = Record<string, unknown>;

export interface InstructionType {
  /** The IFEval instruction id, e.g. `keywords:frequency`. */
  id: string;
  /** The kwargs the instruction reads (anything else that is not null is rejected). */
  args: readonly string[];
  /** Validates kwargs and returns the check; throws KwargsError when they are unusable. */
  build(kwargs: Kwargs): Check;
  /** True when the check needs the language detector. */
  usesLanguage?: boolean;
}

export class KwargsError extends Error {}

export type Relation = 'less than' | 'at least';

export function intArg(kw: Kwargs, name: string, min = 0): number {
  const v = kw[name];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw new KwargsError(`"${name}" must be an integer >= ${min}, got ${JSON.stringify(v) ?? 'nothing'}`);
  }
  return v;
}

export function strArg(kw: Kwargs, name: string, nonEmpty = true): string {
  const v = kw[name];
  if (typeof v !== 'string' || (nonEmpty && v.length === 0)) {
    throw new KwargsError(`"${name}" must be a${nonEmpty ? ' non-empty' : ''} string, got ${JSON.stringify(v) ?? 'nothing'}`);
  }
  return v;
}

export function strListArg(kw: Kwargs, name: string): string[] {
  const v = kw[name];
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' && x.length > 0)) {
    throw new KwargsError(`"${name}" must be a non-empty list of non-empty strings, got ${JSON.stringify(v) ?? 'nothing'}`);
  }
  return v as string[];
}

export function relationArg(kw: Kwargs, name: string): Relation {
  const v = kw[name];
  if (v !== 'less than' && v !== 'at least') {
    throw new KwargsError(`"${name}" must be "less than" or "at least", got ${JSON.stringify(v) ?? 'nothing'}`);
  }
  return v;
}

export function compare(actual: number, relation: Relation, threshold: number): boolean {
  return relation === 'less than' ? actual < threshold : actual >= threshold;
}
