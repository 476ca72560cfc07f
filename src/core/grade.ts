// grade() and gradeStream(): the one entry every surface calls. A record in any accepted shape
// is normalised (and depth-checked) into a sample, then graded; nothing throws for a bad sample.
import type { Grader, GraderContext } from './grader.js';
import { orderedMap } from './ordered.js';
import { GradeFailure, type Result } from './result.js';
import { normalizeRecord, type GradeInput } from './sample.js';
import { Services } from './services.js';

let defaultServices: Services | undefined;

/**
 * Grades one sample. `input` may be `{item, sample}` or the shorthand `{item, output_text}`.
 * Never throws for bad samples: problems come back as `valid: false` results.
 */
export async function grade(grader: Grader, input: GradeInput | Record<string, unknown>, ctx?: Partial<GraderContext>): Promise<Result> {
  let gi: GradeInput;
  try {
    gi = normalizeRecord(input);
  } catch (e) {
    const kind = e instanceof GradeFailure ? e.kind : 'bad_input';
    return { score: null, valid: false, error: { kind, message: (e as Error).message }, metadata: { grader: grader.name, type: grader.type, duration_ms: 0 } };
  }
  const services = ctx?.services ?? (defaultServices ??= new Services());
  return grader.grade(gi, { ...ctx, services });
}

/** A result of gradeStream: the input's `id` (its position in the stream, from 0, when it has none) and its result. */
export type StreamResult = { id: string | number } & Result;

function idOf(x: GradeInput | Record<string, unknown>, position: number): string | number {
  const id = (x as { id?: unknown } | null)?.id;
  if (typeof id === 'string' || typeof id === 'number') return id;
  if (typeof id === 'bigint') return Number(id); // as normalizeRecord reads it
  return position;
}

/**
 * Grades an (async) iterable of inputs with bounded concurrency, yielding results in input order,
 * each with its input's id.
 */
export async function* gradeStream(
  grader: Grader,
  inputs: AsyncIterable<GradeInput | Record<string, unknown>> | Iterable<GradeInput | Record<string, unknown>>,
  opts: { concurrency?: number; services?: Services } = {},
): AsyncGenerator<StreamResult> {
  const ctx = opts.services ? { services: opts.services } : {};
  async function* positioned() {
    let i = 0;
    for await (const x of inputs) yield { x, at: i++ };
  }
  yield* orderedMap(positioned(), async ({ x, at }) => ({ id: idOf(x, at), ...(await grade(grader, x, ctx)) }), opts.concurrency ?? 64);
}
