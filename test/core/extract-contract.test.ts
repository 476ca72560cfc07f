// One extraction path for every text grader (docs/extract.md): each registered type that reads a
// model's text takes the shared `extract` option and treats a reasoning block the same way. Under
// `think: "strip"` a leading <think>…</think> block holding a distractor changes nothing; under
// `"keep"` the distractor is read (the result changes); a block that never closes is a valid floor
// score with the shared reason. A new grader type fails this suite until it is listed in READS
// (with a case) or in EXEMPT (with the reason it has no `extract` option).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grade, gradeGroup, listGraderTypes, loadGrader, Services, validateGrader, type Result } from '../../dist/index.js';
import { startTestServer } from '../helpers/openai-test-server.js';

// The judges' model: it answers badly (the last allowed label, 0, false) when the request shows the
// distractor "Rome", else well, so whether a judge saw the reasoning is observable in its score.
const server = await startTestServer({ record: false });
server.onChat((req) => {
  const bad = JSON.stringify(req.body.messages).includes('Rome');
  const prop = req.body.response_format?.json_schema?.schema?.properties?.result;
  const result = Array.isArray(prop?.enum) ? (bad ? prop.enum.at(-1) : prop.enum[0]) : prop?.type === 'boolean' ? !bad : bad ? 0 : 1;
  return { content: JSON.stringify({ steps: [{ description: 'checked', conclusion: 'done' }], result }) };
});
server.onReward((req) => ({ body: (req.body.text as string[]).map((t) => ({ embedding: [t.includes('Rome') ? -5 : 5], meta_info: {} })) }));
const judge = { model: 'judge-model', base_url: server.url, max_retries: 0, cache: false };

interface Case {
  /** The grader config, without `extract`. */
  config: Record<string, unknown>;
  item?: Record<string, unknown>;
  /** The response as the grader should see it, and a distractor that changes the result when read. */
  answer: string;
  think: string;
  /** What is compared (default: the score). */
  observe?: (r: Result) => unknown;
  /** Graded as a group of two identical responses (a group-stage type). */
  group?: true;
  /** The reason when the reasoning never closes (default: the shared one). */
  unclosed?: RegExp;
}

const NEVER_CLOSES = /the reasoning block never closes \(extract\.think: strip\)/;

/** Every type that reads a model's text, with a case that makes reading the reasoning observable. */
const READS: Record<string, Case[]> = {
  string_check: [{ config: { input: '{{sample.output_text}}', reference: 'Paris', operation: 'eq' }, answer: 'Paris', think: 'Rome' }],
  text_similarity: [
    {
      config: { input: '{{sample.output_text}}', reference: 'the capital of france is paris', evaluation_metric: 'rouge_l' },
      answer: 'the capital of france is paris',
      think: 'rome rome rome',
    },
  ],
  length: [{ config: { unit: 'chars', budget: 1000 }, answer: 'Paris', think: 'x'.repeat(300) }],
  repetition: [{ config: { n: 2 }, answer: 'the capital is paris', think: 'loop loop loop loop loop loop' }],
  // the labels protocol asks no model; the reasoning, when read, adds steps
  prm: [
    {
      config: { protocol: 'labels', first_error: '{{item.first_error}}' },
      item: { first_error: -1 },
      answer: 'Step one.\n\nStep two.',
      think: 'draft a\n\ndraft b',
      observe: (r) => [r.score, r.steps?.length],
    },
  ],
  ifeval: [{ config: { instruction_ids: ['punctuation:no_comma'] }, answer: 'Paris is the capital', think: 'a, b, c' }],
  math: [{ config: { reference: '{{item.answer}}' }, item: { answer: '42' }, answer: '42', think: 'maybe \\boxed{7}' }],
  code: [
    {
      config: { format: 'stdio', tests: [{ input: '', output: 'ok' }], limits: { time_ms: 10_000 } },
      answer: "print('ok')",
      think: "```python\nprint('no')\n```",
    },
  ],
  format: [
    { config: { check: 'json' }, answer: '{"ok": true}', think: 'not json' },
    { config: { check: 'regex', pattern: '^Paris' }, answer: 'Paris', think: 'Rome' },
  ],
  tool_call: [{ config: { reference: [{ get_weather: { city: ['Paris'] } }] }, answer: '[get_weather(city="Paris")]', think: '[get_weather(city="Rome")]' }],
  majority_vote: [
    {
      config: { grader: { type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.majority_label}}', operation: 'like' } },
      answer: 'The answer is 42',
      think: 'maybe \\boxed{7}',
      observe: (r) => r.metadata.majority_label,
      group: true,
      // no response gives a vote, so the group has no label
      unclosed: /no response in the group has a final answer/,
    },
  ],
};

// judges and reward models: extract.think (default keep) decides whether the model sees the reasoning
Object.assign(READS, {
  score_model: [{ config: { ...judge, range: [0, 1], input: [{ role: 'user', content: 'Rate: {{sample.output_text}}' }] }, answer: 'Paris', think: 'Rome' }],
  label_model: [
    {
      config: { ...judge, input: [{ role: 'user', content: 'Label: {{sample.output_text}}' }], labels: ['good', 'bad'], passing_labels: ['good'] },
      answer: 'Paris',
      think: 'Rome',
    },
  ],
  gui_grounding: [
    {
      config: { reward: 'point_in_box' },
      item: { target: { box: [10, 10, 50, 50] }, width: 100, height: 100 },
      // auto reads JSON before tags: kept, the reasoning's JSON click is what is read
      answer: '<point>(20,20)</point>',
      think: '{"action": "click", "coordinate": [90, 90]}',
    },
  ],
  pairwise: [{ config: { ...judge, question: 'Capital?', response_b: 'Lyon', orders: 'single' }, answer: 'Paris', think: 'Rome' }],
  rubric: [{ config: { ...judge, question: 'Capital?', criteria: [{ criterion: 'names the capital', weight: 1 }] }, answer: 'Paris', think: 'Rome' }],
  reference_verify: [{ config: { ...judge, question: 'Capital?', reference: 'Paris' }, answer: 'Paris', think: 'Rome' }],
  reward_model: [
    {
      config: { model: 'rm', base_url: server.url, protocol: 'sglang', text: '{{sample.output_text}}', sigmoid: true, max_retries: 0 },
      answer: 'Paris',
      think: 'Rome',
    },
  ],
} satisfies Record<string, Case[]>);

/** Types with no `extract` option, and why that is honest. */
const EXEMPT: Record<string, string> = {
  multi: 'a composite: reads no text itself; its sub-graders do, each with its own extract',
  gate: 'a composite (see multi)',
  threads: 'a composite (see multi)',
  weighted_sum: 'a composite (see multi)',
  tiers: 'a composite (see multi)',
  transform: 'a composite (see multi)',
  schedule: 'a composite (see multi)',
  overlong_penalty: 'reads the token count in response_length, not the text; its sub-grader reads the text',
  random: 'the text only seeds the draw (the sample identity); nothing in it is scored',
  python: "the user's grade(sample, item) gets the raw sample: what it reads is its own code",
  bfcl_multi_turn: 'grades turn lists of calls, not one output text',
  tau_bench: 'grades a conversation (messages), not one output text',
  reward_machine: "grades a trajectory's steps (events over step fields or sub-graders), not one output text",
  count_bonus: 'a novelty bonus over a state key, not a reading of the text',
  episodic_bonus: 'a novelty bonus over the states of a trajectory, not a reading of the text',
  rnd_bonus: 'a novelty bonus over numeric feature vectors, not a reading of the text',
  feature: 'takes a number the sample carries as the score; reads no text',
};

let services: Services;
beforeAll(() => {
  services = new Services();
});
afterAll(async () => {
  await services?.close();
  await server.close();
});

async function run(c: Case, think: 'strip' | 'keep', output: string): Promise<Result> {
  const g = loadGrader({ ...c.config, extract: { think } });
  const input = { item: c.item ?? {}, sample: { output_text: output } };
  if (!c.group) return grade(g, input, { services });
  const [r] = await gradeGroup(
    g,
    [
      { uid: 'u', ...input },
      { uid: 'u', ...input },
    ],
    { advantages: null, services },
  );
  return r!;
}

describe('extract contract: every type that reads text', () => {
  it('every registered type is listed once, as a text reader or an exemption with its reason', () => {
    const types = listGraderTypes()
      .map((t) => t.type)
      .filter((n) => !n.startsWith('test_'));
    expect(types.filter((t) => !(t in READS) && !(t in EXEMPT))).toEqual([]);
    expect(Object.keys(READS).filter((t) => t in EXEMPT)).toEqual([]);
    expect([...Object.keys(READS), ...Object.keys(EXEMPT)].filter((t) => !types.includes(t))).toEqual([]);
  });

  it('reward_model refuses think: strip without a bounded reward (a never-closing response needs a floor)', () => {
    const cfg = { type: 'reward_model', model: 'rm', base_url: server.url, protocol: 'sglang', text: '{{sample.output_text}}', extract: { think: 'strip' } };
    expect(validateGrader(cfg).map((i) => i.path)).toContain('extract.think');
    expect(validateGrader({ ...cfg, sigmoid: true })).toEqual([]);
  });

  it('an exempt type refuses `extract` (a type that gains the option must move to READS)', () => {
    for (const type of Object.keys(EXEMPT)) {
      const paths = validateGrader({ type, extract: { think: 'strip' } }).map((i) => i.path);
      expect(paths, type).toContain('extract');
    }
  });

  for (const [type, cases] of Object.entries(READS)) {
    cases.forEach((c0, i) => {
      const c = { ...c0, config: { type, ...c0.config } };
      const observe = c.observe ?? ((r: Result) => r.score);
      describe(`${type}${cases.length > 1 ? ` #${i + 1}` : ''}`, () => {
        it('accepts extract.think strip and keep', () => {
          for (const think of ['strip', 'keep']) expect(validateGrader({ ...c.config, extract: { think } })).toEqual([]);
        });

        it('strip: a leading reasoning block changes nothing; keep: its text is read', async () => {
          const withThink = `<think>${c.think}</think>${c.answer}`;
          const plain = await run(c, 'strip', c.answer);
          const stripped = await run(c, 'strip', withThink);
          const keptPlain = await run(c, 'keep', c.answer);
          const kept = await run(c, 'keep', withThink);
          for (const r of [plain, stripped, keptPlain, kept]) expect(r.valid, r.error?.message).toBe(true);
          expect(observe(stripped)).toEqual(observe(plain));
          // the same response without reasoning reads the same under both settings
          expect(observe(keptPlain)).toEqual(observe(plain));
          expect(observe(kept)).not.toEqual(observe(plain));
        });

        it('strip: a reasoning block that never closes is a valid floor score with the shared reason', async () => {
          const r = await run(c, 'strip', `<think>${c.think}\n${c.answer}`);
          expect(r.valid, r.error?.message).toBe(true);
          expect(r.score).toBe(0);
          expect(r.reason).toMatch(c.unclosed ?? NEVER_CLOSES);
        });
      });
    });
  }
});
