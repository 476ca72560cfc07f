// `overlong_penalty`: DAPO's soft overlong punishment (verl DAPORewardManager): with expected =
// max_resp_len - overlong_buffer.len, a response of L tokens gets
//   min(-(L - expected) / overlong_buffer.len × penalty_factor, 0)
// added to the sub-grader's score (or alone, without a sub-grader). L is the policy's token count,
// read per sample from `response_length` (default {{sample.response_length}}).
import { z } from 'zod';
import { childFailure, GradeFailure, type Result } from '../../core/result.js';
import { describe } from '../../core/sample.js';
import { renderValue } from '../../core/template.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';

const schema = graderSchema({
  grader: z.unknown().optional(),
  max_resp_len: z.number().int().positive(),
  overlong_buffer: z.strictObject({
    len: z.number().int().positive(),
    penalty_factor: z.number().finite().nonnegative().optional(),
  }),
  response_length: z.string().min(1).optional(),
});
type Config = z.infer<typeof schema>;

/** DAPO's overlong reward (≤ 0) for a response of `len` tokens. */
export function overlongReward(len: number, maxRespLen: number, bufferLen: number, factor: number): number {
  const expected = maxRespLen - bufferLen;
  const exceed = len - expected;
  const r = Math.min((-exceed / bufferLen) * factor, 0);
  return r === 0 ? 0 : r; // no -0 in results
}

export const overlongPenalty: GraderType<Config> = {
  type: 'overlong_penalty',
  summary: "DAPO's overlong penalty: adds min(-(L - (max_resp_len - buffer)) / buffer × factor, 0) to a sub-grader's score",
  capabilities: PURE,
  schema,
  build(cfg, b) {
    const inner = cfg.grader !== undefined ? b.child(cfg.grader, 'grader', 'grader') : undefined;
    const buf = cfg.overlong_buffer.len;
    const factor = cfg.overlong_buffer.penalty_factor ?? 1.0;
    if (cfg.max_resp_len < buf) b.issue('max_resp_len', `must be at least overlong_buffer.len (${buf}), as in verl`);
    const src = cfg.response_length ?? '{{sample.response_length}}';
    const t = b.template('response_length', src);
    if (t.vars.length === 0) b.issue('response_length', `must be a template such as "{{sample.response_length}}", got ${JSON.stringify(src)}`);
    return async (input, ctx) => {
      const raw = renderValue(t, input);
      const len = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      if (!Number.isInteger(len) || len < 0) throw new GradeFailure('bad_input', `response_length ${src} rendered to ${describe(raw)}, not a token count`);
      const penalty = overlongReward(len, cfg.max_resp_len, buf, factor);
      const metadata = { response_length: len, expected_len: cfg.max_resp_len - buf, overlong_reward: penalty, overlong: penalty < 0 };
      const why =
        penalty < 0
          ? `${len} tokens is past ${cfg.max_resp_len - buf}: overlong penalty ${penalty}`
          : `${len} tokens is within ${cfg.max_resp_len - buf}: no overlong penalty`;
      if (!inner) return { score: penalty, reason: why, metadata };
      const r = await inner.grade(input, ctx);
      const components: Record<string, Result> = { [inner.name]: r };
      if (!r.valid || r.score === null) throw childFailure(`sub-grader "${inner.name}"`, r, components);
      return { score: r.score + penalty, components, reason: `${r.score} from ${inner.name}; ${why}`, metadata: { ...metadata, unpenalized: r.score } };
    };
  },
};
