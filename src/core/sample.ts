// Sample and dataset-item types, and normalisation of an input record (JSONL line, HTTP body) into one.
import { DEFAULT_MAX_JSON_DEPTH, findTooDeep, tooDeepMessage } from './json.js';
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

export interface NormalizeOptions {
  /**
   * Deepest nesting accepted in the record (default DEFAULT_MAX_JSON_DEPTH; the record itself is
   * level 1). Callers that already bounded the JSON text (the JSONL reader, the server's body
   * parser) pass Infinity to skip the walk.
   */
  maxDepth?: number;
}

/**
 * Accepts `{id?, item, sample: {output_text, ...}}` or the shorthand `{id?, item, output_text, ...}`.
 * Throws GradeFailure('bad_input') naming the field that is wrong, or GradeFailure('limit_exceeded')
 * naming where the record is nested deeper than `maxDepth` (deep values would overflow the stack of
 * recursive graders and of the hand-off to worker threads).
 */
export function normalizeRecord(rec: unknown, opts: NormalizeOptions = {}): GradeInput {
  if (!isPlainObject(rec)) throw new GradeFailure('bad_input', `record must be a JSON object, got ${describe(rec)}`);
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (maxDepth !== Infinity) {
    const deep = findTooDeep(rec, maxDepth);
    if (deep !== undefined) throw new GradeFailure('limit_exceeded', tooDeepMessage(deep, maxDepth));
  }
  // an integer id past 2^53 (a BigInt from the exact parse) keeps the value JSON.parse gives it;
  // readers that echo ids keep its source text (ID_JSON, rawIdsOf)
  const id = typeof rec.id === 'bigint' ? Number(rec.id) : rec.id;
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
