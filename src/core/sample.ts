// Sample and dataset-item types, and normalisation of an input record (JSONL line, HTTP body) into one.
import { GradeFailure } from './result.js';

/** A model output. Fields mirror the OpenAI grader `sample` namespace, plus agent/process fields. */
export interface Sample {
  output_text?: string;
  output_json?: unknown;
  output_tools?: unknown;
  choices?: unknown;
  /** Reasoning/solution steps (for process rewards). */
  steps?: string[];
  /** A full conversation or agent trajectory. */
  messages?: unknown;
  [key: string]: unknown;
}

export type Item = Record<string, unknown>;

/** One thing to grade: a sample and the dataset item it answers. */
export interface GradeInput {
  id?: string | number;
  item: Item;
  sample: Sample;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Accepts `{id?, item, sample: {output_text, ...}}` or the shorthand `{id?, item, output_text, ...}`.
 * Throws GradeFailure('bad_input') naming the field that is wrong.
 */
export function normalizeRecord(rec: unknown): GradeInput {
  if (!isPlainObject(rec)) throw new GradeFailure('bad_input', `record must be a JSON object, got ${describe(rec)}`);
  const id = rec.id;
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') {
    throw new GradeFailure('bad_input', `field "id" must be a string or number, got ${describe(id)}`);
  }
  const item = rec.item ?? {};
  if (!isPlainObject(item)) throw new GradeFailure('bad_input', `field "item" must be an object, got ${describe(item)}`);
  let sample: Sample;
  if (rec.sample !== undefined) {
    if (!isPlainObject(rec.sample)) throw new GradeFailure('bad_input', `field "sample" must be an object, got ${describe(rec.sample)}`);
    sample = rec.sample as Sample;
  } else {
    sample = {};
    for (const k of ['output_text', 'output_json', 'output_tools', 'choices', 'steps', 'messages'] as const) {
      if (rec[k] !== undefined) sample[k] = rec[k] as never;
    }
    if (Object.keys(sample).length === 0) {
      throw new GradeFailure('bad_input', 'record has neither "sample" nor a shorthand field such as "output_text"');
    }
  }
  if (sample.output_text !== undefined && typeof sample.output_text !== 'string') {
    throw new GradeFailure('bad_input', `field "sample.output_text" must be a string, got ${describe(sample.output_text)}`);
  }
  return id === undefined || id === null ? { item, sample } : { id, item, sample };
}

export function describe(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  return typeof x === 'object' ? 'an object' : `${typeof x} ${JSON.stringify(x)?.slice(0, 40)}`;
}
