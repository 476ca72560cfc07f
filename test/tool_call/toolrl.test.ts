// tool_call mode `toolrl`: ToolRL's reward (format 0/1 + correctness in [-3, 3]) against values the
// test works out by hand from ToolRL's definition (name Jaccard + per matched call parameter-name
// Jaccard + equal values, over 1 + Σ (1 + #gold parameters), scaled to [-3, 3]), the input forms
// ToolRL models write, hostile responses, and a BFCL slice.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';
import { extractCalls } from '../../dist/graders/tool_call/index.js';
import { dataPath } from '../helpers/data.js';

/** ToolRL's scaling of a raw score s out of m to [-3, 3]. */
const scale = (s: number, m: number) => (6 * s) / m - 3;

type Call = { name: string; parameters: Record<string, unknown> };
const line = (c: Call) => JSON.stringify(c);
/** A response in ToolRL's layout: think, then one block with one JSON call per line. */
const toolrlText = (calls: Call[]) => `<think>I will call the tools.</think>\n<tool_call>\n${calls.map(line).join('\n')}\n</tool_call>`;
/** A gold in ToolRL's ground-truth form. */
const goldText = (calls: Call[]) => `<think>gold</think>\n<tool_call>\n${calls.map(line).join('\n')}\n</tool_call>`;

const g = loadGrader({ type: 'tool_call', mode: 'toolrl', reference: '{{item.gold}}' });
const run = (gold: unknown, output_text: string) => grade(g, { item: { gold }, output_text });

const five = { a: 1, b: 'x', c: true, d: [1, 2], e: 2.5 };

describe('correctness: ToolRL terms recomputed by hand', () => {
  it("one wrong value of five: ToolRL's 2.143 (names 1 + keys 1 + 4 values, out of 1 + 1 + 5)", async () => {
    const r = await run(goldText([{ name: 'f', parameters: five }]), toolrlText([{ name: 'f', parameters: { ...five, e: 3 } }]));
    expect(r.valid).toBe(true);
    expect(r.metadata!.correctness).toBeCloseTo(scale(1 + 1 + 4, 7), 12);
    expect(Number((r.metadata!.correctness as number).toFixed(3))).toBe(2.143);
    expect(r.metadata!.format).toBe(1);
    expect(r.score).toBeCloseTo(1 + scale(6, 7), 12);
  });

  it('exact calls: 3 + format 1 = 4; calls in another order too', async () => {
    const gold = [
      { name: 'f', parameters: { x: 1 } },
      { name: 'g', parameters: { y: 'z' } },
    ];
    expect((await run(goldText(gold), toolrlText(gold))).score).toBe(4);
    expect((await run(goldText(gold), toolrlText(gold.slice().reverse()))).score).toBe(4);
  });

  it('parameter names: Jaccard of {a, b} and {a, c} is 1/3', async () => {
    const r = await run(goldText([{ name: 'f', parameters: { a: 1, b: 2 } }]), toolrlText([{ name: 'f', parameters: { a: 1, c: 3 } }]));
    // names 1, keys 1/3, values 1 (a); max 1 + (1 + 2) = 4
    expect(r.metadata!.correctness).toBeCloseTo(scale(1 + 1 / 3 + 1, 4), 12);
  });

  it('tool names: multiset Jaccard of [f, g] and [f, f] is 1/3; the unmatched gold call adds nothing', async () => {
    const gold = [
      { name: 'f', parameters: { x: 1 } },
      { name: 'g', parameters: { y: 2 } },
    ];
    const r = await run(goldText(gold), toolrlText([gold[0]!, gold[0]!]));
    // names 1/3, f pair 1 + 1; max 1 + 2 + 2 = 5
    expect(r.metadata!.correctness).toBeCloseTo(scale(1 / 3 + 2, 5), 12);
    expect(r.metadata!.pairs).toEqual([0, -1]);
  });

  it('optimal matching across calls, where pairing in gold order would lose 1 point', async () => {
    // gold f(a=1), f(a=1, b=2); predicted f(a=1, b=2), f(a=1, b=3).
    // f(a=1) scores 1/2 + 1 with either call; f(a=1,b=2) scores 1 + 2 with the first, 1 + 1 with the second.
    // Best: f(a=1)-second (1.5) + f(a=1,b=2)-first (3) = 4.5 (gold-order greedy: 1.5 + 2 = 3.5).
    const gold = [
      { name: 'f', parameters: { a: 1 } },
      { name: 'f', parameters: { a: 1, b: 2 } },
    ];
    const pred = [
      { name: 'f', parameters: { a: 1, b: 2 } },
      { name: 'f', parameters: { a: 1, b: 3 } },
    ];
    const r = await run(goldText(gold), toolrlText(pred));
    expect(r.metadata!.correctness).toBeCloseTo(scale(1 + 4.5, 1 + 2 + 3), 12);
    expect(r.metadata!.pairs).toEqual([1, 0]);
  });

  it('values compare with Python ==: 1 equals 1.0 and True; "1" does not', async () => {
    const gold = goldText([{ name: 'f', parameters: { a: 1, b: 1 } }]);
    const ok = await run(gold, '<think>t</think>\n<tool_call>\n{"name": "f", "parameters": {"a": 1.0, "b": true}}\n</tool_call>');
    expect(ok.metadata!.correctness).toBe(3);
    const r = await run(gold, toolrlText([{ name: 'f', parameters: { a: '1', b: 1 } }]));
    expect(r.metadata!.correctness).toBeCloseTo(scale(1 + 1 + 1, 4), 12);
  });

  it('a gold with no call (a <response>): correctness 0, format asks for think + response', async () => {
    const gold = '<think>no tool fits</think>\n<response>I cannot do that.</response>';
    const r = await run(gold, '<think>hm</think>\n<response>Sorry.</response>');
    expect([r.score, r.metadata!.correctness, r.metadata!.format]).toEqual([1, 0, 1]);
    const called = await run(gold, toolrlText([{ name: 'f', parameters: {} }]));
    expect([called.score, called.metadata!.format]).toEqual([0, 0]);
  });
});

describe('format term', () => {
  const gold = goldText([{ name: 'f', parameters: { x: 1 } }]);
  const call = '{"name": "f", "parameters": {"x": 1}}';
  it.each([
    [`<think>a\nb</think>\n<tool_call>\n${call}\n</tool_call>`, 1],
    [`  <think>a</think>\n<tool_call>\n${call}\n</tool_call>\n`, 1], // ToolRL strips the response
    [`<tool_call>\n${call}\n</tool_call>`, 0], // no think
    [`<think>a</think><tool_call>\n${call}\n</tool_call>`, 0], // no newline after </think>
    [`<think>a</think>\n<tool_call>${call}</tool_call>`, 0], // block not on its own lines
    [`<think>a</think>\n<tool_call>\n${call}\n</tool_call>\n<tool_call>\n${call}\n</tool_call>`, 0], // two blocks
    [`<think>a</think>\n<tool_call>\n${call}\n</tool_call> trailing`, 0],
  ])('%j -> %d', async (text, want) => {
    const r = await run(gold, text);
    expect(r.metadata!.format).toBe(want);
    expect(r.metadata!.correctness).toBe(3);
  });
  it('gold with calls and a response asks for both, in that order', async () => {
    const both = `${gold}\n<response>done</response>`;
    expect((await run(both, `<think>a</think>\n<tool_call>\n${call}\n</tool_call>\n<response>ok</response>`)).score).toBe(4);
    expect((await run(both, `<think>a</think>\n<tool_call>\n${call}\n</tool_call>`)).score).toBe(3);
  });
});

describe('input forms', () => {
  it('the shared extraction reads JSON lines in one <tool_call> block, with parameters or arguments', () => {
    const text = '<tool_call>\n{"name": "f", "parameters": {"a": 1}}\n{"name": "g", "arguments": {"b": [2]}}\n</tool_call>';
    expect(extractCalls(text)).toEqual([
      { name: 'f', args: { a: 1 } },
      { name: 'g', args: { b: [2] } },
    ]);
    expect(() => extractCalls('<tool_call>\n{"name": "f", "parameters": {"a": 1\n</tool_call>')).toThrow(/neither one JSON value nor one JSON value per line/);
  });

  it('mode bfcl reads the JSON-lines block too', async () => {
    const bfcl = loadGrader({ type: 'tool_call', reference: '{{item.gold}}' });
    const r = await grade(bfcl, {
      item: { gold: [{ f: { a: [1] } }, { g: { b: [2] } }] },
      output_text: toolrlText([
        { name: 'g', parameters: { b: 2 } },
        { name: 'f', parameters: { a: 1 } },
      ]),
    });
    expect(r.score).toBe(1);
  });

  it('structured output_tools: correctness alone with format_reward false; refused (invalid) with the format term on', async () => {
    const tools = [{ id: 'c0', type: 'function', function: { name: 'f', arguments: '{"a": 1, "b": 3}' } }];
    const gold = [{ name: 'f', parameters: { a: 1, b: 2 } }];
    const noFormat = loadGrader({ type: 'tool_call', mode: 'toolrl', format_reward: false, reference: '{{item.gold}}' });
    const r = await grade(noFormat, { item: { gold }, sample: { output_tools: tools } });
    expect(r.score).toBeCloseTo(scale(1 + 1 + 1, 4), 12);
    const refused = await grade(g, { item: { gold }, sample: { output_tools: tools } });
    expect([refused.valid, refused.error?.kind]).toEqual([false, 'bad_input']);
  });

  it('a gold given as a list of {name, arguments} calls', async () => {
    const r = await run([{ name: 'f', arguments: { a: 1 } }], toolrlText([{ name: 'f', parameters: { a: 1 } }]));
    expect(r.score).toBe(4);
  });
});

describe('hostile responses: valid, never above what ToolRL gives, -3 at the floor', () => {
  const gold = goldText([{ name: 'f', parameters: { x: 1 } }]);

  it('half JSON in the block: a valid floor (-3 correctness), not a 0 and not invalid', async () => {
    const r = await run(gold, '<think>t</think>\n<tool_call>\n{"name": "f", "parameters": {"x": 1\n</tool_call>');
    expect(r.valid).toBe(true);
    expect([r.score, r.metadata!.correctness, r.metadata!.format, r.metadata!.response_fault]).toEqual([-2, -3, 1, 'unparsable']);
    const bare = await run(gold, '{"name": "f", "parameters": {"x":');
    expect([bare.valid, bare.score]).toEqual([true, -3]);
  });

  it('prose, or a call outside any <tool_call> block: -3 (ToolRL requires the block)', async () => {
    expect((await run(gold, 'I would call f with x=1.')).score).toBe(-3);
    expect((await run(gold, '{"name": "f", "parameters": {"x": 1}}')).score).toBe(-3);
  });

  it('duplicate calls: names [f] vs [f, f] = 1/2, the second copy unmatched', async () => {
    const c = { name: 'f', parameters: { x: 1 } };
    const r = await run(gold, toolrlText([c, c]));
    expect(r.metadata!.correctness).toBeCloseTo(scale(1 / 2 + 2, 3), 12);
    const many = await run(gold, toolrlText(Array.from({ length: 2000 }, () => c)));
    expect(many.metadata!.correctness).toBeCloseTo(scale(1 / 2000 + 2, 3), 12);
  });

  it('a huge argument list: parameter-name Jaccard 1/5001', async () => {
    const params: Record<string, unknown> = { x: 1 };
    for (let i = 0; i < 5000; i++) params[`p${i}`] = i;
    const r = await run(gold, toolrlText([{ name: 'f', parameters: params }]));
    expect(r.metadata!.correctness).toBeCloseTo(scale(1 + 1 / 5001 + 1, 3), 12);
  });

  it('over max_chars: the ToolRL floor -3, valid (0 would pay more than a wrong call)', async () => {
    const small = loadGrader({ type: 'tool_call', mode: 'toolrl', reference: '{{item.gold}}', max_chars: 100 });
    const r = await grade(small, { item: { gold }, output_text: toolrlText([{ name: 'f', parameters: { x: 'y'.repeat(200) } }]) });
    expect([r.valid, r.score, r.metadata!.response_fault]).toEqual([true, -3, 'limit_exceeded']);
  });

  it('a broken gold is invalid bad_input, not a guessed reward', async () => {
    const r = await run('<think>g</think>\n<tool_call>\n{"name": "f", "parameters": \n</tool_call>', toolrlText([{ name: 'f', parameters: {} }]));
    expect([r.valid, r.error?.kind]).toEqual([false, 'bad_input']);
  });

  it('options that would have no effect are refused', () => {
    expect(() => loadGrader({ type: 'tool_call', mode: 'toolrl', reference: [], partial_credit: true })).toThrow(/partial_credit/);
    expect(() => loadGrader({ type: 'tool_call', reference: [], format_reward: false })).toThrow(/format_reward/);
  });
});

describe('BFCL references (simple_python)', () => {
  const dir = `${dataPath('bfcl')}/`;
  const read = (f: string) =>
    readFileSync(dir + f, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; ground_truth: Record<string, Record<string, unknown[]>>[] });
  const items = read('possible_answer/BFCL_v4_simple_python.json');
  const bfclG = loadGrader({ type: 'tool_call', mode: 'toolrl', reference: '{{item.ground_truth}}' });
  /** A concrete value from an accepted one: an accepted dict holds a list of accepted values per key. */
  const concrete = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(concrete);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown[]>).flatMap(([k, vals]) => {
          const real = vals.filter((x) => x !== '');
          return real.length ? [[k, concrete(real[0])]] : [];
        }),
      );
    return v;
  };
  const firstCall = (gt: (typeof items)[number]['ground_truth']) => {
    const [name, params] = Object.entries(gt[0]!)[0]!;
    const required = Object.entries(params)
      .filter(([, vals]) => !vals.includes(''))
      .map(([k, vals]) => [k, [concrete(vals[0])]] as const);
    return { name, params, required };
  };

  it('an accepted answer (required parameters only, dots as _) scores 4', async () => {
    const bad: string[] = [];
    for (const it of items) {
      const { name, required } = firstCall(it.ground_truth);
      const call = { name: name.replaceAll('.', '_'), parameters: Object.fromEntries(required.map(([k, v]) => [k, v[0]])) };
      const r = await grade(bfclG, { item: it, output_text: toolrlText([call]) });
      if (r.score !== 4) bad.push(`${it.id}: ${r.reason ?? r.error?.message}`);
    }
    expect(items.length).toBe(400);
    expect(bad).toEqual([]);
  });

  it('one wrong required value: 1 + 6·(1 + 1 + (n − 1)) / (2 + n) − 3 for n required parameters', async () => {
    const bad: string[] = [];
    let graded = 0;
    for (const it of items) {
      const { name, required } = firstCall(it.ground_truth);
      if (required.length === 0) continue;
      const parameters = Object.fromEntries(required.map(([k, v]) => [k, v[0]]));
      parameters[required[0]![0]] = { wrong: true }; // equal to no accepted value
      const r = await grade(bfclG, { item: it, output_text: toolrlText([{ name, parameters }]) });
      const n = required.length;
      const want = 1 + scale(1 + 1 + (n - 1), 2 + n);
      graded++;
      if (!(Math.abs((r.score ?? Number.NaN) - want) < 1e-12)) bad.push(`${it.id}: ${r.score} != ${want}`);
    }
    expect(graded).toBeGreaterThan(350);
    expect(bad).toEqual([]);
  });
});
