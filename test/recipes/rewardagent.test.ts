// docs/recipes.md, RewardAgent: the documented commands run as written. The instruction agent's
// figures on IFEval's first 100 GPT-4 responses are recomputed from the reference implementation's
// own verdicts (ifeval/eval_results_strict.jsonl: per response, the fraction of its instructions
// followed). The judger and the DPO pairs run on rollouts this test writes (per IFEval prompt, GPT-4's
// response and two rewrites of it) with a local, protocol-faithful vLLM /pooling reward model whose
// reward favours length; the reward of each response (preference + instruction) and the pair of each
// prompt (the best against the worst, strictly higher) are recomputed here from RewardAgent's definition.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataPath } from '../helpers/data.js';
import { type RecordedRequest, startTestServer, type TestServer } from '../helpers/openai-test-server.js';
import { Figures, groupBy, mean, RECIPES, type Rec, readJsonl, runSectionAsync, writeJsonl } from './helpers.js';

const HEADING = RECIPES.rewardagent!;

/** The local reward model's raw reward for a text: its length in thousands of characters (a verbosity-biased RM). */
const rawReward = (text: string) => text.length / 1000;
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** The reference implementation's strict verdicts, by prompt text. */
const reference = new Map<string, boolean[]>(
  readFileSync(dataPath('ifeval/eval_results_strict.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .map((r) => [r.prompt as string, r.follow_instruction_list as boolean[]]),
);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  server.onReward((r: RecordedRequest) => {
    const inputs: string[] = Array.isArray(r.body.input) ? r.body.input : [r.body.input];
    return { body: { object: 'list', data: inputs.map((t, index) => ({ index, object: 'pooling', data: [[0], [rawReward(t)]] })) } };
  });
  process.env.OPENAI_BASE_URL = server.url;
});
afterAll(async () => {
  delete process.env.OPENAI_BASE_URL;
  await server.close();
});

/** The user's rollouts: per prompt, GPT-4's response, the same in capitals, and its first paragraph. */
function rollouts(dir: string): void {
  const ifeval = readJsonl(dataPath('ifeval/input_data.jsonl'));
  const responses = new Map(readJsonl(dataPath('ifeval/input_response_data_gpt4_20231107_145030.jsonl')).map((r) => [r.prompt, r.response as string]));
  const lines: Rec[] = [];
  for (const p of ifeval.filter((x) => responses.has(x.prompt)).slice(0, 8)) {
    const gpt4 = responses.get(p.prompt)!;
    const item = { prompt: p.prompt, instruction_id_list: p.instruction_id_list, kwargs: p.kwargs };
    const variants = { gpt4, upper: gpt4.toUpperCase(), first: gpt4.split('\n\n')[0]! };
    for (const [k, text] of Object.entries(variants)) lines.push({ id: `${p.key}-${k}`, uid: `p${p.key}`, item, sample: { output_text: text } });
  }
  writeJsonl(join(dir, 'tmp/recipes/rollouts.jsonl'), lines);
}

describe('RewardAgent recipe', () => {
  it('the documented commands: the instruction agent agrees with the reference verdicts; the judger and its pairs recomputed', async () => {
    const { dir } = await runSectionAsync(HEADING, rollouts);
    // the instruction agent on IFEval's GPT-4 responses, against the reference implementation
    const samples = readJsonl(join(dir, 'tmp/recipes/ifeval-100.jsonl'));
    const out = readJsonl(join(dir, 'tmp/recipes/rewardagent-instruction.jsonl'));
    expect(out.map((o) => o.id)).toEqual(samples.map((s) => s.id));
    const ref = samples.map((s) => {
      const v = reference.get(s.item.prompt)!;
      expect(v, s.id).toBeDefined();
      return v.filter(Boolean).length / v.length;
    });
    const t = new Figures(HEADING);
    t.check('responses', out.length);
    t.check('mean instruction reward', mean(ref));
    t.check('responses that follow every instruction', ref.filter((x) => x === 1).length);
    t.check('responses where arbiter and the reference disagree', out.filter((o, i) => Math.abs(o.score - ref[i]!) > 1e-12).length);
    t.done();

    // the judger: preference (sigmoid of the RM's last-token reward) + instruction, per response
    const inputs = readJsonl(join(dir, 'tmp/recipes/rollouts.jsonl'));
    const scored = readJsonl(join(dir, 'tmp/recipes/rewardagent.jsonl'));
    scored.forEach((o, i) => {
      expect(o.valid, JSON.stringify(o.error)).toBe(true);
      const pref = sigmoid(rawReward(`${inputs[i]!.item.prompt}\n\n${inputs[i]!.sample.output_text}`));
      expect(o.components.preference.score).toBeCloseTo(pref, 9);
      expect(o.score).toBeCloseTo(pref + o.components.instruction.score, 9);
    });
    // GPT-4's own responses get the reference's instruction verdicts here too
    inputs.forEach((s, i) => {
      if (!s.id.endsWith('-gpt4')) return;
      const v = reference.get(s.item.prompt)!;
      expect(scored[i]!.components.instruction.score).toBeCloseTo(v.filter(Boolean).length / v.length, 12);
    });
    // the pairs: per prompt the highest reward against the lowest (the first line among equals), strictly higher
    const want: Rec[] = [];
    for (const g of groupBy(
      scored.map((o, i) => ({ o, s: inputs[i]! })),
      (x) => x.s.uid,
    )) {
      const best = [...g].sort((a, b) => b.o.score - a.o.score || g.indexOf(a) - g.indexOf(b))[0]!;
      const worst = [...g].sort((a, b) => a.o.score - b.o.score || g.indexOf(a) - g.indexOf(b))[0]!;
      if (best.o.score > worst.o.score) want.push({ prompt: best.s.item.prompt, chosen: best.s.sample.output_text, rejected: worst.s.sample.output_text });
    }
    expect(want.length).toBeGreaterThan(4);
    const pairs = readJsonl(join(dir, 'tmp/recipes/rewardagent-pairs.jsonl'));
    expect(pairs.map((p) => ({ prompt: p.prompt, chosen: p.chosen, rejected: p.rejected }))).toEqual(want);
  }, 180_000);
});
