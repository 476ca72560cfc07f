// docs/recipes.md, Cooper: the documented commands run as written, with VerifyRM served by a local,
// protocol-faithful OpenAI-compatible judge (OPENAI_BASE_URL, as the recipe says). Recomputed here
// from Cooper's definition: per question, a positive is a response the rule accepts, drawn at random
// among them (the seeded draw recomputed from SHA-256: seed, uid, id), and a negative one the rule
// rejects, drawn the same way; a question with no accepted or no rejected response gives no pair.
// The rule's verdicts are checked against the data's own is_correct labels, and the policy's reward
// through VerifyRM gives the same pairs by its `rule` component. Then hostile input: a group of one
// and a line without a uid.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordedRequest, startTestServer, type TestServer } from '../helpers/openai-test-server.js';
import { commandOf, expectGsm8kSlice, Figures, groupBy, RECIPES, type Rec, readJsonl, runAsync, runSectionAsync, workdir, writeJsonl } from './helpers.js';

const HEADING = RECIPES.cooper!;
const SEED = 1;
const draw = (uid: string, id: string) => createHash('sha256').update(`${SEED}\u0000${uid}\u0000${id}`).digest().readUIntBE(0, 6) / 2 ** 48;

/** The final number of a GSM8K solution (after its last "A:"). */
const finalOf = (s: string) => Number((/A:\s*(.*)\s*$/.exec(s.trim())?.[1] ?? '').replace(/[$,]/g, ''));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  // VerifyRM's stand-in: right when the response's final number is the reference's, P(yes) 0.9 / 0.2
  server.onChat((r: RecordedRequest) => {
    const t = r.body.messages.map((m: { content: string }) => m.content).join('\n');
    const ref = t.slice(t.indexOf('[Reference answer]\n') + 19, t.indexOf('\n\n[Response]'));
    const same = Number(ref.replace(/[$,]/g, '')) === finalOf(t.slice(t.indexOf('[Response]\n') + 11));
    return {
      content: `The answers ${same ? 'agree' : 'differ'}.\nVerdict: [[${same ? 'YES' : 'NO'}]]`,
      alternatives: {
        token: same ? 'YES' : 'NO',
        top: [
          { token: 'YES', logprob: Math.log(same ? 0.9 : 0.2) },
          { token: 'NO', logprob: Math.log(same ? 0.1 : 0.8) },
        ],
      },
    };
  });
  process.env.OPENAI_BASE_URL = `${server.url}/v1`;
});
afterAll(async () => {
  delete process.env.OPENAI_BASE_URL;
  await server.close();
});

/** Cooper's pairs recomputed from the labels: per uid, a random accepted against a random rejected. */
function expectedPairs(samples: Rec[]): { uid: string; chosen: string; rejected: string }[] {
  const out: { uid: string; chosen: string; rejected: string }[] = [];
  for (const g of groupBy(samples, (s) => s.uid)) {
    const pick = (xs: Rec[]) => [...xs].sort((a, b) => draw(a.uid, a.id) - draw(b.uid, b.id))[0];
    const pos = pick(g.filter((s) => s.item.is_correct));
    const neg = pick(g.filter((s) => !s.item.is_correct));
    if (pos && neg) out.push({ uid: g[0]!.uid, chosen: pos.id, rejected: neg.id });
  }
  return out;
}

describe('Cooper recipe', () => {
  it('the documented commands: rule verdicts, positive/negative pairs (recomputed), the same pairs through VerifyRM', async () => {
    const { dir } = await runSectionAsync(HEADING);
    const samples = readJsonl(join(dir, 'tmp/recipes/gsm8k-50.jsonl'));
    expectGsm8kSlice(samples, 50);
    const rule = readJsonl(join(dir, 'tmp/recipes/cooper-rule.jsonl'));
    const t = new Figures(HEADING);
    t.check('responses', rule.length);
    t.check('responses the rule accepts', rule.filter((r) => r.score === 1).length);
    t.check("rule verdicts that agree with the data's label", rule.filter((r, i) => (r.score === 1) === samples[i]!.item.is_correct).length);
    const want = expectedPairs(samples);
    const pairs = readJsonl(join(dir, 'tmp/recipes/cooper-pairs.jsonl'));
    expect(pairs.map((p) => ({ uid: p.uid, chosen: p.chosen_id, rejected: p.rejected_id }))).toEqual(want);
    const byId = new Map(samples.map((s) => [s.id, s]));
    for (const p of pairs) {
      expect(p.prompt).toBe(byId.get(p.chosen_id)!.item.question);
      expect(p.chosen).toBe(byId.get(p.chosen_id)!.sample.output_text);
      expect(p.rejected).toBe(byId.get(p.rejected_id)!.sample.output_text);
      expect([p.score_chosen, p.score_rejected]).toEqual([1, 0]);
    }
    t.check('pairs', pairs.length);
    const groups = groupBy(samples, (s) => s.uid);
    t.check('questions with no accepted response', groups.filter((g) => !g.some((s) => s.item.is_correct)).length);
    t.check('questions with no rejected response', groups.filter((g) => g.every((s) => s.item.is_correct)).length);
    t.done();
    // the policy's reward is VerifyRM's P(yes); the rule rides along and picks the same pairs
    const rm = readJsonl(join(dir, 'tmp/recipes/cooper.jsonl'));
    rm.forEach((r, i) => {
      expect(r.valid).toBe(true);
      expect(r.score).toBeCloseTo(samples[i]!.item.is_correct ? 0.9 : 0.2, 9);
      expect(r.components.rule.score).toBe(rule[i]!.score);
    });
    const rmPairs = readJsonl(join(dir, 'tmp/recipes/cooper-pairs-rm.jsonl'));
    expect(rmPairs.map((p) => [p.chosen_id, p.rejected_id])).toEqual(pairs.map((p) => [p.chosen_id, p.rejected_id]));
  }, 180_000);

  it('a group of one and a line without a uid give no pair and are counted, never a silent pair', async () => {
    const dir = workdir();
    const lines = [
      { id: 'a', uid: 'solo', item: { question: 'q', answer: '1' }, sample: { output_text: 'A: 1' } },
      { id: 'b', item: { question: 'q', answer: '1' }, sample: { output_text: 'A: 2' } },
      { id: 'c', uid: 'two', item: { question: 'r', answer: '3' }, sample: { output_text: 'A: 3' } },
      { id: 'd', uid: 'two', item: { question: 'r', answer: '3' }, sample: { output_text: 'A: 4' } },
    ];
    writeJsonl(join(dir, 'tmp/recipes/gsm8k-50.jsonl'), lines);
    const score = await runAsync(dir, commandOf(HEADING, 'arbiter score -g examples/recipes/cooper/rule.json'));
    expect(score.code, score.stderr).toBe(0);
    const pairs = await runAsync(dir, commandOf(HEADING, 'arbiter pairs tmp/recipes/cooper-rule.jsonl'));
    expect(pairs.code, pairs.stderr).toBe(0);
    expect(readJsonl(join(dir, 'tmp/recipes/cooper-pairs.jsonl')).map((p) => [p.chosen_id, p.rejected_id])).toEqual([['c', 'd']]);
    expect(pairs.stderr).toContain('one_response=1');
    expect(pairs.stderr).toContain('1 line(s) without the group field (line 2)');
  }, 60_000);
});
