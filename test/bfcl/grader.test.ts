// The bfcl_multi_turn grader's own behaviour around BFCL's checker: reasons, per-turn steps and
// metadata; input formats; the irrelevance option; int/float readings of an object-form
// initial_config; hard limits on untrusted input; what is refused (invalid) rather than guessed;
// long-context data; declared capabilities.
import { describe, expect, it } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';
import { grader, loadCategory, rawLine } from './helpers.js';

const fsConfig = {
  GorillaFileSystem: {
    root: { alex: { type: 'directory', contents: { docs: { type: 'directory', contents: { 'a.txt': { type: 'file', content: 'one\ntwo' } } } } } },
  },
};
const item = (ground_truth: string[][], extra: Record<string, unknown> = {}) => ({
  id: 'multi_turn_base_9999',
  initial_config: fsConfig,
  involved_classes: ['GorillaFileSystem'],
  ground_truth,
  ...extra,
});
const g = grader();

describe('scoring, reasons and steps', () => {
  const gt = [["cd(folder='docs')"], ["touch(file_name='b.txt')"], ["cat(file_name='a.txt')"]];

  it('a perfect replay: score 1, one step per turn', async () => {
    const r = await grade(g, { item: item(gt), sample: { output_turns: gt } });
    expect(r).toMatchObject({ valid: true, score: 1, steps: [1, 1, 1] });
    expect(r.metadata.turns).toHaveLength(3);
  });

  it('a state mismatch names the turn, the class and the attribute; later turns still get steps', async () => {
    const turns = [["cd(folder='docs')"], ["touch(file_name='c.txt')"], ["cat(file_name='a.txt')"]];
    const r = await grade(g, { item: item(gt), sample: { output_turns: turns } });
    expect(r.score).toBe(0);
    expect(r.metadata.error_type).toBe('multi_turn:instance_state_mismatch');
    expect(r.metadata.failed_turn).toBe(1);
    expect(r.metadata.error_message).toBe('Model instance for GorillaFileSystem does not match the state with ground truth instance.');
    expect(r.reason).toMatch(/^turn 1: GorillaFileSystem state differs from the ground truth's \(root: model .*c\.txt.* vs ground truth .*b\.txt/s);
    // the file sets stay different, so turn 2 fails too
    expect(r.steps).toEqual([1, 0, 0]);
  });

  it('missing results name what is missing (order does not matter, duplicates count)', async () => {
    const two = [["cd(folder='docs')"], ["cat(file_name='a.txt')", "cat(file_name='a.txt')"]];
    const r = await grade(g, { item: item(two), sample: { output_turns: [["cd(folder='docs')"], ["cat(file_name='a.txt')"]] } });
    expect(r.metadata.error_type).toBe('multi_turn:execution_response_mismatch');
    expect(r.reason).toContain('lack 1 of the ground truth\'s ({"file_content": "one\\ntwo"})');
    // the model may produce a result in an earlier turn (all turns so far count)
    const early = await grade(g, { item: item(two), sample: { output_turns: [["cd(folder='docs')", "cat(file_name='a.txt')"], ["cat(file_name='a.txt')"]] } });
    expect(early.score).toBe(1);
  });

  it('a model call Python cannot parse is an error result, not an invalid grade', async () => {
    const r = await grade(g, { item: item(gt), sample: { output_turns: [["cd(folder='docs'"], ...gt.slice(1)] } });
    expect(r.valid).toBe(true);
    // the working directory is private state: only the missing cd result shows
    expect(r.metadata.error_type).toBe('multi_turn:execution_response_mismatch');
    expect(r.metadata.failed_turn).toBe(0);
  });

  it('the model output is not a list of turns: BFCL inference_error', async () => {
    const r = await grade(g, { item: item(gt), sample: { output_turns: { not: 'a list' } } });
    expect(r).toMatchObject({ valid: true, score: 0 });
    expect(r.metadata.error_type).toBe('multi_turn:inference_error');
  });
});

describe('input formats', () => {
  it('OpenAI tool calls (arguments JSON text keeps 20.0 a float) and a bracketed list in one string', async () => {
    const vehicle = {
      id: 'multi_turn_base_9998',
      initial_config: { VehicleControlAPI: { fuelLevel: 10.0 } },
      involved_classes: ['VehicleControlAPI'],
      ground_truth: [['adjustClimateControl(temperature=20.0)', "displayCarStatus(option='fuel')"]],
    };
    const asTools = [
      [
        { type: 'function', function: { name: 'adjustClimateControl', arguments: '{"temperature": 20.0}' } },
        { name: 'displayCarStatus', arguments: { option: 'fuel' } },
      ],
    ];
    expect((await grade(g, { item: vehicle, sample: { output_turns: asTools } })).score).toBe(1);
    expect(
      (await grade(g, { item: vehicle, sample: { output_turns: [["[adjustClimateControl(temperature=20.0), displayCarStatus(option='fuel')]"]] } })).score,
    ).toBe(1);
    // 20 (an int) is stored as 20 == 20.0, but the result echoes it as 20 where the ground truth shows 20.0
    const asInt = [[{ type: 'function', function: { name: 'adjustClimateControl', arguments: '{"temperature": 20}' } }, "displayCarStatus(option='fuel')"]];
    const r = await grade(g, { item: vehicle, sample: { output_turns: asInt } });
    expect(r.metadata.error_type).toBe('multi_turn:execution_response_mismatch');
  });

  it('bfcl_result: text steps decoded as BFCL does (positional arguments dropped, chat text ignored)', async () => {
    const fmt = grader({ input_format: 'bfcl_result' });
    const gt = [["cd(folder='docs')"], ["cat(file_name='a.txt')"]];
    const ok = await grade(fmt, {
      item: item(gt),
      sample: { output_turns: [["cd(folder='docs')", 'I changed directory.'], ["```\n[cat(file_name='a.txt')]\n```"]] },
    });
    expect(ok.score).toBe(1);
    expect(ok.metadata.dropped_steps).toEqual([1, 0]);
    // cat('a.txt') decodes to cat(), which fails: the ground truth's result is missing
    const pos = await grade(fmt, { item: item(gt), sample: { output_turns: [["cd(folder='docs')"], ["cat('a.txt')"]] } });
    expect(pos.metadata.error_type).toBe('multi_turn:execution_response_mismatch');
    // FC steps: a list of {name: arguments JSON}
    const fc = await grade(fmt, { item: item(gt), sample: { output_turns: [[[{ cd: '{"folder": "docs"}' }]], [[{ cat: '{"file_name": "a.txt"}' }]]] } });
    expect(fc.score).toBe(1);
  });
});

describe('irrelevance (BFCL does not apply it; irrelevance_check turns it on)', () => {
  const e = loadCategory('miss_func').find((x) => x.id === 'multi_turn_miss_func_0')!;
  const turns = e.ground_truth.map((t, i) => (i === 2 ? ['ls()'] : t));

  it('calls in a turn whose ground truth is empty: still 1 by default', async () => {
    expect((await grade(g, { item: e, sample: { output_turns: turns } })).score).toBe(1);
  });

  it('with irrelevance_check: 0 with multi_turn:irrelevance_error:decoder_success at that turn', async () => {
    const r = await grade(grader({ irrelevance_check: true }), { item: e, sample: { output_turns: turns } });
    expect(r.score).toBe(0);
    expect(r.metadata.error_type).toBe('multi_turn:irrelevance_error:decoder_success');
    expect(r.metadata.failed_turn).toBe(2);
    expect(r.steps).toEqual([1, 1, 0, 1, 1]);
    expect((await grade(grader({ irrelevance_check: true }), { item: e, sample: { output_turns: e.ground_truth } })).score).toBe(1);
  });
});

describe('int and float in an object-form initial_config', () => {
  it('fields BFCL data writes as floats are floats (10000.0 + 100 prints 10100.0 either way)', async () => {
    const trading = {
      id: 'x_1',
      initial_config: { TradingBot: { account_info: { account_id: 1, balance: 10000, binding_card: 1 }, authenticated: true } },
      involved_classes: ['TradingBot'],
      ground_truth: [['fund_account(amount=100)']],
    };
    const r = await grade(g, { item: trading, sample: { output_turns: [['fund_account(amount=100.0)']] } });
    expect(r.score, r.reason).toBe(1);
  });

  const travel = (balance: number | string) => ({
    id: 'x_2',
    initial_config:
      typeof balance === 'string'
        ? balance
        : {
            TravelAPI: {
              credit_card_list: { c1: { card_number: '1', balance } },
              booking_record: { b1: { card_id: 'c1', travel_cost: 10.0 } },
              access_token: 't',
              token_expires_in: 1,
            },
          },
    involved_classes: ['TravelAPI'],
    ground_truth: [
      [
        "purchase_insurance(access_token='t', insurance_type='x', booking_id='b1', insurance_cost=50.0, card_id='c1')",
        "get_credit_card_balance(access_token='t', card_id='c1')",
      ],
    ],
  });
  const model = [
    [
      "purchase_insurance(access_token='t', insurance_type='x', booking_id='b1', insurance_cost=50, card_id='c1')",
      "get_credit_card_balance(access_token='t', card_id='c1')",
    ],
  ];

  it('a card balance (written both ways in BFCL data) is graded under both readings; same outcome: that outcome', async () => {
    const r = await grade(g, { item: travel(1000), sample: { output_turns: travel(1000).ground_truth } });
    expect(r.score).toBe(1);
    expect(r.metadata.int_float_readings).toBe(2);
  });

  it('outcomes that differ between the readings: invalid, asking for JSON text', async () => {
    const r = await grade(g, { item: travel(1000), sample: { output_turns: model } });
    expect(r.valid).toBe(false);
    expect(r.error?.kind).toBe('bad_input');
    expect(r.error?.message).toMatch(/TravelAPI\.credit_card_list\.c1\.balance is an int or a float.*pass initial_config as JSON text/);
  });

  it('initial_config as JSON text decides it: 1000 (int) differs, 1000.0 (float) matches', async () => {
    const text = (b: string) =>
      `{"TravelAPI": {"credit_card_list": {"c1": {"card_number": "1", "balance": ${b}}}, "booking_record": {"b1": {"card_id": "c1", "travel_cost": 10.0}}, "access_token": "t", "token_expires_in": 1}}`;
    const asInt = await grade(g, { item: travel(text('1000')), sample: { output_turns: model } });
    expect(asInt.metadata.error_type).toBe('multi_turn:execution_response_mismatch');
    const asFloat = await grade(g, { item: travel(text('1000.0')), sample: { output_turns: model } });
    expect(asFloat.score).toBe(1);
  });

  it('the raw dataset line gives the same verdicts as the parsed item', async () => {
    const line = rawLine('base', 'multi_turn_base_151');
    const cfgText = line.slice(line.indexOf('"initial_config": ') + 18, line.indexOf(', "path":'));
    const e = loadCategory('base').find((x) => x.id === 'multi_turn_base_151')!;
    const r = await grade(g, { item: { ...e, initial_config: cfgText }, sample: { output_turns: e.ground_truth } });
    expect(r.score).toBe(1);
    expect(r.metadata.int_float_readings).toBeUndefined();
  });
});

describe('hard limits and refusals', () => {
  const gt = [["cd(folder='docs')"]];

  it("the model's calls per turn, call size, total size and turns are bounded: a valid 0 naming the limit", async () => {
    const limited = (r: any, limit: RegExp) => {
      expect(r).toMatchObject({ valid: true, score: 0 });
      expect(r.metadata.error_type).toBe('arbiter:model_limit_exceeded');
      expect(r.reason).toMatch(limit);
    };
    const many = [Array.from({ length: 65 }, () => 'pwd()')];
    limited(await grade(g, { item: item(gt), sample: { output_turns: many } }), /turn 0 has 65 calls, over max_calls_per_turn 64/);
    const big = [[`echo(content='${'x'.repeat(20_001)}')`]];
    limited(await grade(g, { item: item(gt), sample: { output_turns: big } }), /over max_call_chars 20000/);
    const small = grader({ max_chars: 100 });
    limited(await grade(small, { item: item(gt), sample: { output_turns: [[`echo(content='${'x'.repeat(200)}')`]] } }), /over max_chars 100/);
    // more turns than max_turns cannot match the ground truth's count: BFCL's force_terminated
    const long = await grade(g, { item: item(gt), sample: { output_turns: Array.from({ length: 65 }, () => []) } });
    expect(long).toMatchObject({ valid: true, score: 0 });
    expect(long.metadata.error_type).toBe('multi_turn:force_terminated');
    expect(long.metadata.error_message).toMatch(/over max_turns 64/);
    // the same limits on the ground truth are the item's: invalid
    const gtMany = await grade(g, { item: item([Array.from({ length: 65 }, () => 'pwd()')]), sample: { output_turns: [['pwd()']] } });
    expect(gtMany.error).toMatchObject({ kind: 'limit_exceeded', message: expect.stringMatching(/ground-truth turn 0 has 65 calls/) });
  });

  it("the work budget stops runaway execution (directories sharing contents, paths doubling 20 times, then find): the model's calls, a valid 0", async () => {
    // mv and cp share a directory's children the way the original does, so each level doubles the paths
    const level = [
      "cp(source='n', destination='m')",
      "mkdir(dir_name='p')",
      "mv(source='n', destination='p')",
      "mv(source='m', destination='p')",
      "mv(source='p', destination='n')",
    ];
    const calls = ["cd(folder='docs')", "mkdir(dir_name='n')", ...Array.from({ length: 20 }, () => level).flat(), 'find()'];
    const loose = grader({ max_calls_per_turn: 200, max_steps: 100_000 });
    const r = await grade(loose, { item: item([["cd(folder='docs')"]]), sample: { output_turns: [calls] } });
    expect(r).toMatchObject({ valid: true, score: 0 });
    expect(r.metadata.error_type).toBe('arbiter:model_limit_exceeded');
    expect(r.reason).toMatch(/the model's calls used more than max_steps=100000 work units in the call "find\(\)"/);
    // the same calls without the final find stay within budget
    const ok = await grade(loose, { item: item([["cd(folder='docs')"]]), sample: { output_turns: [calls.slice(0, -1)] } });
    expect(ok.valid).toBe(true);
    // the ground truth's own calls over the budget: the item's, invalid
    const gtOver = await grade(loose, { item: item([calls]), sample: { output_turns: [["cd(folder='docs')"]] } });
    expect(gtOver.error).toMatchObject({ kind: 'limit_exceeded', message: expect.stringMatching(/the ground truth's calls used more than max_steps=100000/) });
  });

  it('limits in the config are capped', () => {
    expect(() => loadGrader({ ...grader().config, max_steps: 1e12 })).toThrow(/max_steps/);
    expect(() => loadGrader({ ...grader().config, max_calls_per_turn: 5000 })).toThrow(/max_calls_per_turn/);
  });

  it('a model call using Python arbiter does not evaluate fails the entry at its turn: a valid 0 naming the call', async () => {
    const lambda = [["cd(folder=(lambda: 'docs')())"]];
    const r = await grade(g, { item: item(gt), sample: { output_turns: lambda } });
    expect(r).toMatchObject({ valid: true, score: 0 });
    expect(r.metadata.error_type).toBe('arbiter:model_call_not_evaluated');
    expect(r.reason).toMatch(/^turn 0: .*lambda.* in the call "cd\(folder=\(lambda: 'docs'\)\(\)\)": arbiter does not evaluate it/);
    const after = await grade(g, { item: item([...gt, ['pwd()']]), sample: { output_turns: [['pwd()'], ["cd(folder=(lambda: 'docs')())"]] } });
    expect(after).toMatchObject({ valid: true, score: 0 });
    expect(after.metadata.error_type).toBe('multi_turn:execution_response_mismatch');
    expect(after.metadata.stopped).toMatchObject({ turn: 1 });
    // in the ground truth it is the item's: invalid
    const bad = await grade(g, { item: item([["cd(folder=(lambda: 'docs')())"]]), sample: { output_turns: gt } });
    expect(bad.error?.kind).toBe('bad_input');
    expect(bad.error?.message).toMatch(/lambda.*cannot say what BFCL would do/);
  });

  it("a class's initial_config that is not an object: bad_input (BFCL's _load_scenario would raise)", async () => {
    for (const cfg of [{ GorillaFileSystem: [] }, { GorillaFileSystem: null }]) {
      const r = await grade(g, { item: { ...item(gt), initial_config: cfg }, sample: { output_turns: gt } });
      expect(r.error?.kind).toBe('bad_input');
      expect(r.error?.message).toMatch(/object has no attribute 'get' \(BFCL would crash here\)/);
    }
    // absent is the class's default state
    expect((await grade(g, { item: { ...item([['pwd()']]), initial_config: {} }, sample: { output_turns: [['pwd()']] } })).score).toBe(1);
  });

  it('classes arbiter does not simulate, and a malformed ground truth, are bad_input', async () => {
    const web = await grade(g, { item: { ...item(gt), involved_classes: ['WebSearchAPI'] }, sample: { output_turns: [['x()']] } });
    expect(web.error?.message).toMatch(/WebSearchAPI is not simulated \(it calls a live search engine/);
    // names of Object.prototype properties are unknown classes too, as a class and as an initial_config key
    for (const cls of ['constructor', 'toString', '__proto__']) {
      const r = await grade(g, { item: { ...item(gt), involved_classes: [cls] }, sample: { output_turns: [['x()']] } });
      expect(r.error?.kind).toBe('bad_input');
      expect(r.error?.message).toContain(`class ${cls} is not simulated`);
    }
    const keyed = await grade(g, { item: { ...item(gt), initial_config: { ...fsConfig, toString: { a: 1 } } }, sample: { output_turns: gt } });
    expect(keyed.valid).toBe(true);
    const bad = await grade(g, { item: { ...item(gt), ground_truth: 'cd()' }, sample: { output_turns: [['x()']] } });
    expect(bad.error?.kind).toBe('bad_input');
  });
});

describe('long-context data and capabilities', () => {
  it('long-context entries without ARBITER_BFCL_LONG_CONTEXT: config_error naming the export script', async () => {
    const saved = process.env.ARBITER_BFCL_LONG_CONTEXT;
    delete process.env.ARBITER_BFCL_LONG_CONTEXT;
    try {
      const e = loadCategory('long_context')[0]!;
      const r = await grade(grader({ entry_id: '{{item.id}}' }), { item: e, sample: { output_turns: e.ground_truth } });
      expect(r.error?.kind).toBe('config_error');
      expect(r.error?.message).toMatch(/ARBITER_BFCL_LONG_CONTEXT.*python3 \/.*\/dist\/envs\/bfcl_multi_turn\/apis\/long-context-export\.py/);
      // base entries with the same config need no data
      const b = loadCategory('base')[0]!;
      expect((await grade(grader({ entry_id: '{{item.id}}' }), { item: b, sample: { output_turns: b.ground_truth } })).score).toBe(1);
    } finally {
      if (saved !== undefined) process.env.ARBITER_BFCL_LONG_CONTEXT = saved;
    }
  });

  it('declares pure, plus server_env when long-context data may be read', () => {
    expect(grader().capabilities.map((c) => c.capability)).toEqual(['pure']);
    expect(grader({ entry_id: '{{item.id}}' }).capabilities.map((c) => [c.capability, c.field])).toEqual([
      ['pure', ''],
      ['server_env', 'entry_id'],
    ]);
    expect(grader({ long_context: true }).capabilities.map((c) => c.field)).toContain('long_context');
    expect(grader({ long_context: false, entry_id: '{{item.id}}' }).capabilities.map((c) => c.capability)).toEqual(['pure']);
  });
});
