// docs/recipes.md, PRIME: the documented commands run as written, with the implicit PRM and its
// reference served by a local, protocol-faithful echo-logprobs server (OPENAI_BASE_URL, as the recipe
// says) whose log-probability of each token is a fixed function of its text and of the model. Every
// number is recomputed here from the definitions: the token rewards β·(log π − log π_ref) of the
// response's tokens, the outcome from the data's own labels, and PRIME's advantage (batch_norm, RLOO of
// each source, returns with γ = 1, the sum whitened over the batch's tokens as verl's masked_whiten).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogprobServer, startLogprobServer } from '../helpers/logprob-server.js';
import { commandOf, Figures, groupBy, mean, RECIPES, readJsonl, runAsync, runSectionAsync, workdir, writeJsonl } from './helpers.js';

const HEADING = RECIPES.prime!;
const BETA = 0.05;
/** The stand-in models: log π of a token by its length, log π_ref the same for every token. */
const logPolicy = (token: string) => -0.2 - 0.15 * (token.trim().length % 4);
const logRef = () => -0.5;

let srv: LogprobServer;
beforeAll(async () => {
  srv = await startLogprobServer();
  srv.script((t) => logPolicy(t));
  // the reference model's log-probabilities (same tokens and offsets: one tokenizer)
  srv.mutate((body, req) => {
    if (req.body.model === 'prime-ref')
      body.choices[0].logprobs.token_logprobs = body.choices[0].logprobs.token_logprobs.map((x: number | null) => (x === null ? null : logRef()));
    return body;
  });
  process.env.OPENAI_BASE_URL = srv.url;
});
afterAll(async () => {
  delete process.env.OPENAI_BASE_URL;
  await srv.close();
});

/** PRIME's advantage over a batch (every row: its uid, outcome score and token process rewards). */
function primeAdvantages(rows: { uid: string; score: number; p: number[] }[]): number[][] {
  // batch_norm: the largest |Σ_{s>=t} p_s| over the batch's tokens, plus 1e-6
  let top = 0;
  for (const r of rows) {
    let run = 0;
    for (let t = r.p.length - 1; t >= 0; t--) {
      run += r.p[t]!;
      top = Math.max(top, Math.abs(run));
    }
  }
  const scaled = rows.map((r) => r.p.map((x) => x / (top + 1e-6)));
  const raw: number[][] = rows.map(() => []);
  for (const idx of groupBy(
    rows.map((_, i) => i),
    (i) => rows[i]!.uid,
  )) {
    const n = idx.length;
    const meanSum = idx.reduce((a, i) => a + mean(scaled[i]!), 0);
    const outSum = idx.reduce((a, i) => a + rows[i]!.score, 0);
    for (const i of idx) {
      const p = scaled[i]!;
      const outcome = rows[i]!.score - (outSum - rows[i]!.score) / (n - 1);
      // returns with γ = 1: the process RLOO rewards summed from t to the end, plus the outcome (on the last token)
      const adv = new Array<number>(p.length);
      let proc = 0;
      for (let t = p.length - 1; t >= 0; t--) {
        proc += (p[t]! * n) / (n - 1) - meanSum / (n - 1);
        adv[t] = proc + outcome;
      }
      raw[i] = adv;
    }
  }
  // verl's masked_whiten over every token: unbiased variance, 1e-8 offsets
  const all = raw.flat();
  const N = all.length;
  const m = all.reduce((a, x) => a + x, 0) / (N + 1e-8);
  const variance = (all.reduce((a, x) => a + (x - m) ** 2, 0) / (N + 1e-8)) * (N / (N - 1));
  return raw.map((a) => a.map((x) => (x - m) / Math.sqrt(variance + 1e-8)));
}

describe('PRIME recipe', () => {
  it('the documented commands: token rewards and advantages recomputed from the definitions', async () => {
    const { dir } = await runSectionAsync(HEADING);
    const input = readJsonl(join(dir, 'tmp/recipes/gsm8k-10.jsonl'));
    const out = readJsonl(join(dir, 'tmp/recipes/prime.jsonl'));
    expect(out.map((o) => o.id)).toEqual(input.map((i) => i.id));
    const rows = out.map((o, i) => {
      expect(o.valid, JSON.stringify(o.error)).toBe(true);
      const meta = o.components.process.metadata;
      const tokens = meta.tokens as string[];
      // the response's tokens spell the response; each reward is β·(log π − log π_ref) of its token
      expect(tokens.join('')).toBe(input[i]!.sample.output_text);
      const want = tokens.map((t) => BETA * (logPolicy(t) - logRef()));
      (meta.token_rewards as number[]).forEach((r, t) => expect(r).toBeCloseTo(want[t]!, 12));
      expect(meta.response_reward).toBeCloseTo(
        want.reduce((a, x) => a + x, 0),
        10,
      );
      // the outcome is the data's own label
      expect(o.score).toBe(input[i]!.item.is_correct ? 1 : 0);
      return { uid: o.uid as string, score: o.score as number, p: meta.token_rewards as number[] };
    });
    const adv = primeAdvantages(rows);
    out.forEach((o, i) => {
      expect(o.token_advantages, o.id).toHaveLength(rows[i]!.p.length);
      (o.token_advantages as number[]).forEach((a, t) => expect(a).toBeCloseTo(adv[i]![t]!, 8));
    });
    const tokenMean = (accepted: boolean) => mean(adv.filter((_, i) => (rows[i]!.score === 1) === accepted).flat());
    const t = new Figures(HEADING);
    t.check('responses', out.length);
    t.check('responses the outcome accepts', rows.filter((r) => r.score === 1).length);
    t.check('mean implicit response reward', mean(out.map((o) => o.components.process.metadata.response_reward)));
    t.check('mean token advantage of accepted responses', tokenMean(true));
    t.check('mean token advantage of rejected responses', tokenMean(false));
    t.done();
  }, 180_000);

  it('a reference model that tokenises differently makes the line invalid (config_error), never a reward', async () => {
    const dir = workdir();
    writeJsonl(join(dir, 'tmp/recipes/gsm8k-10.jsonl'), [
      { id: 'a', uid: 'u', item: { question: 'What is 2 + 2?', answer: '4' }, sample: { output_text: 'Two and two.\nSo 4.' } },
      { id: 'b', uid: 'u', item: { question: 'What is 2 + 2?', answer: '4' }, sample: { output_text: 'It is 5.' } },
    ]);
    srv.mutate((body, req) => {
      const lp = body.choices[0].logprobs;
      if (req.body.model === 'prime-ref') {
        lp.token_logprobs = lp.token_logprobs.map((x: number | null) => (x === null ? null : logRef()));
        // the response's last word split in two: the same text, other tokens
        const k = lp.tokens.findLastIndex((x: string) => x.length > 1);
        const last = lp.tokens[k];
        {
          lp.tokens.splice(k, 1, last.slice(0, 1), last.slice(1));
          lp.token_logprobs.splice(k, 1, -0.5, -0.5);
          lp.text_offset.splice(k + 1, 0, lp.text_offset[k] + 1);
          lp.top_logprobs.splice(k, 1, { [last.slice(0, 1)]: -0.5 }, { [last.slice(1)]: -0.5 });
        }
      }
      return body;
    });
    try {
      const r = await runAsync(dir, commandOf(HEADING, 'arbiter score -g examples/recipes/prime/grader.json'));
      const out = readJsonl(join(dir, 'tmp/recipes/prime.jsonl'));
      expect(out).toHaveLength(2);
      for (const o of out) {
        expect(o.valid).toBe(false);
        expect(o.error.kind).toBe('config_error');
        expect(o.error.message).toMatch(/tokenises the text differently/);
        // left out of the advantage (masked as the invalid grade it is), never a 0 reward
        expect(o).toMatchObject({ advantage_masked: true, advantage_mask_reason: 'invalid_grade' });
      }
      // nothing valid: the run says so
      expect(r.code).toBe(6);
    } finally {
      srv.mutate((body, req) => {
        if (req.body.model === 'prime-ref')
          body.choices[0].logprobs.token_logprobs = body.choices[0].logprobs.token_logprobs.map((x: number | null) => (x === null ? null : logRef()));
        return body;
      });
    }
  }, 120_000);
});
