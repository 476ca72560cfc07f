// `random`: a seeded Bernoulli reward for spurious-reward controls ("Spurious Rewards: Rethinking
// Training Signals in RLVR": reward 1 with probability p, else 0, whatever the response says).
// The draw is u = SHA-256(seed, key) read as a number in [0, 1), the reward 1 when u < p: the key is
// the sample's identity (`key` template, else the record's id, else the item and response
// themselves), so a rerun gives the same rewards whatever the order, batching or process.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { GradeFailure } from '../../core/result.js';
import { describe } from '../../core/sample.js';
import { renderValue } from '../../core/template.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';

const schema = graderSchema({
  /** Probability of reward 1 (default 0.5). */
  p: z.number().min(0).max(1).optional(),
  /** Seed mixed into every draw (default 0): another seed, another independent set of rewards. */
  seed: z.number().int().safe().optional(),
  /** The sample's identity as a template (e.g. "{{item.uid}}/{{sample.index}}"); default: the record's id, else its item and response. */
  key: z.string().min(1).optional(),
});
type Config = z.infer<typeof schema>;

/** The uniform draw in [0, 1) for a seed and a key (48 bits of SHA-256). */
export function randomDraw(seed: number, key: string): number {
  const h = createHash('sha256').update(`${seed}\u0000${key}`).digest();
  return h.readUIntBE(0, 6) / 2 ** 48;
}

export const random: GraderType<Config> = {
  type: 'random',
  summary: 'seeded Bernoulli(p) reward for spurious-reward controls: the same sample and seed always draw the same reward',
  capabilities: PURE,
  schema,
  build(cfg, b) {
    const p = cfg.p ?? 0.5;
    const seed = cfg.seed ?? 0;
    const key = cfg.key === undefined ? undefined : b.template('key', cfg.key);
    if (key && key.vars.length === 0)
      b.issue('key', `must be a template naming the sample (e.g. "{{item.id}}"), got ${JSON.stringify(cfg.key)}: every sample would draw the same reward`);
    return (s) => {
      let k: string;
      let from: string;
      if (key) {
        const v = renderValue(key, s);
        if (v === undefined || v === null || v === '')
          throw new GradeFailure('bad_input', `key ${cfg.key} rendered to ${describe(v)}: the sample has no identity to draw for`);
        k = typeof v === 'string' ? v : JSON.stringify(v);
        from = 'key';
      } else if (s.id !== undefined) {
        k = `id:${typeof s.id}:${s.id}`;
        from = 'id';
      } else {
        k = `content:${JSON.stringify([s.item, s.sample])}`;
        from = 'content';
      }
      const u = randomDraw(seed, k);
      const score = u < p ? 1 : 0;
      return {
        score,
        reason: `random control: draw ${u.toFixed(6)} ${score ? '<' : '>='} p ${p} (seed ${seed}, by ${from})`,
        metadata: { draw: u, p, seed, key_from: from },
      };
    };
  },
};
