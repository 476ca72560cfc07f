// Options of the file commands (score, advantages, select, pairs, monitor, eval suites) that no other
// test passes: each run with the option against a run without it, and the difference the help
// documents asserted, recomputed here from the definition. test/core/option-walk.test.ts holds every
// option of every command to a test like these.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/openai-test-server.js';
import { dataPath } from '../helpers/data.js';

type Rec = Record<string, any>;
let dir: string;
const put = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const jsonl = (recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join('\n') + '\n';
const lines = (text: string): Rec[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arbiter-options-'));
});

/** Scored lines of two prompts, two responses each, with their texts under non-default names. */
const scored = () =>
  jsonl([
    { id: 'a1', uid: 'a', q: 'Q of a', resp: 'long answer one', score: 1, valid: true },
    { id: 'a2', uid: 'a', q: 'Q of a', resp: 'short', score: 0, valid: true },
    { id: 'b1', uid: 'b', q: 'Q of b', resp: 'first of b', score: 0.25, valid: true },
    { id: 'b2', uid: 'b', q: 'Q of b', resp: 'second of b', score: 0.75, valid: true },
  ]);

describe('--output (the long form of -o): the file gets exactly what stdout gets without it', () => {
  it('score --output', { timeout: 120_000 }, async () => {
    const args = ['score', '--grader', 'examples/arithmetic/grader.json', 'examples/arithmetic/samples.jsonl', '--no-progress'];
    const base = await runCli(args);
    expect(base.code).toBe(0);
    const out = join(dir, 'score.jsonl');
    const r = await runCli([...args, '--output', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const strip = (recs: Rec[]) => recs.map((x) => ({ id: x.id, score: x.score, valid: x.valid }));
    expect(strip(lines(readFileSync(out, 'utf8')))).toEqual(strip(lines(base.stdout)));
    expect(lines(base.stdout).length).toBeGreaterThan(0);
  });

  for (const [cmd, extra] of [
    ['advantages', () => ['--config', put('adv.json', JSON.stringify({ estimator: 'grpo' }))]],
    ['select', () => []],
    ['pairs', () => ['--prompt-field', 'q', '--completion-field', 'resp']],
  ] as const) {
    it(`${cmd} --output`, async () => {
      const input = put(`${cmd}-in.jsonl`, scored());
      const base = await runCli([cmd, input, ...extra()]);
      expect(base.code, base.stderr).toBe(0);
      expect(lines(base.stdout).length).toBeGreaterThan(0);
      const out = join(dir, `${cmd}-out.jsonl`);
      const r = await runCli([cmd, input, ...extra(), '--output', out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(readFileSync(out, 'utf8')).toBe(base.stdout);
    });
  }
});

describe('score --unsafe-no-sandbox', () => {
  it('the graded program sees the host only without the sandbox', { timeout: 120_000 }, async () => {
    // a folder of the host that the sandbox does not mount
    const marker = mkdtempSync(join(tmpdir(), 'arbiter-host-only-'));
    const grader = put(
      'host.json',
      JSON.stringify({ type: 'python', source: `import os\ndef grade(sample, item):\n    return 1.0 if os.path.isdir(${JSON.stringify(marker)}) else 0.0` }),
    );
    const input = put('one.jsonl', jsonl([{ id: 'x', item: {}, output_text: 'x' }]));
    const sandboxed = await runCli(['score', '--grader', grader, input, '--no-progress']);
    expect(sandboxed.code, sandboxed.stderr).toBe(0);
    expect(lines(sandboxed.stdout)[0]).toMatchObject({ id: 'x', valid: true, score: 0 });
    const unsafe = await runCli(['score', '--grader', grader, input, '--no-progress', '--unsafe-no-sandbox']);
    expect(unsafe.code, unsafe.stderr).toBe(0);
    expect(lines(unsafe.stdout)[0]).toMatchObject({ id: 'x', valid: true, score: 1 });
  });
});

describe('select and pairs: --prompt-field and --completion-field name where the texts are', () => {
  it('select --prompt-field --completion-field: the pick carries the texts at those paths, and none without them', async () => {
    const input = put('sel.jsonl', scored());
    const base = lines((await runCli(['select', input])).stdout);
    expect(base.map((x) => x.id)).toEqual(['a1', 'b2']);
    for (const x of base) expect(x.prompt).toBeUndefined();
    const r = await runCli(['select', input, '--prompt-field', 'q', '--completion-field', 'resp']);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).map((x) => [x.id, x.prompt, x.completion])).toEqual([
      ['a1', 'Q of a', 'long answer one'],
      ['b2', 'Q of b', 'second of b'],
    ]);
  });

  it('pairs --prompt-field --completion-field: chosen and rejected are the texts at those paths', async () => {
    const input = put('pairs.jsonl', scored());
    const r = await runCli(['pairs', input, '--prompt-field', 'q', '--completion-field', 'resp']);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).map((x) => [x.prompt, x.chosen, x.rejected])).toEqual([
      ['Q of a', 'long answer one', 'short'],
      ['Q of b', 'second of b', 'first of b'],
    ]);
    // without them there is no text to pair (the default paths are absent here): refused, naming the option
    const base = await runCli(['pairs', input]);
    expect(base.code).toBe(2);
    expect(base.stderr).toMatch(/no prompt text .* --prompt-field/);
  });
});

describe('select and pairs: --group-by and --group-size decide the groups', () => {
  // uid pairs a1 with b1 and a2 with b2; the field "q" pairs them the other way
  const mixed = () =>
    jsonl([
      { id: 'a1', uid: 'u', q: 'A', resp: 'a one', score: 1, valid: true },
      { id: 'b1', uid: 'u', q: 'B', resp: 'b one', score: 0.5, valid: true },
      { id: 'a2', uid: 'v', q: 'A', resp: 'a two', score: 0, valid: true },
      { id: 'b2', uid: 'v', q: 'B', resp: 'b two', score: 0.75, valid: true },
    ]);
  it('select --group-by --group-size', async () => {
    const input = put('mixed.jsonl', mixed());
    const ids = async (args: string[]) => lines((await runCli(['select', input, ...args])).stdout).map((x) => x.id);
    expect(await ids([])).toEqual(['a1', 'b2']);
    // by "q": A = {a1: 1, a2: 0} picks a1; B = {b1: 0.5, b2: 0.75} picks b2; the same picks, other groups:
    const byQ = lines((await runCli(['select', input, '--group-by', 'q'])).stdout).map((x) => [x.uid, x.id]);
    expect(byQ).toEqual([
      ['A', 'a1'],
      ['B', 'b2'],
    ]);
    // groups of one line each (decided as soon as they have one): every line is its own pick
    expect(await ids(['--group-by', 'q', '--group-size', '1'])).toEqual(['a1', 'b1', 'a2', 'b2']);
  });
  it('pairs --group-by --group-size', async () => {
    const input = put('mixed-pairs.jsonl', mixed());
    const pairs = async (args: string[]) => {
      const r = await runCli(['pairs', input, '--prompt-field', 'q', '--completion-field', 'resp', ...args]);
      return { code: r.code, pairs: lines(r.stdout).map((x) => [x.chosen_id, x.rejected_id]) };
    };
    expect((await pairs([])).pairs).toEqual([
      ['a1', 'b1'],
      ['b2', 'a2'],
    ]);
    expect((await pairs(['--group-by', 'q'])).pairs).toEqual([
      ['a1', 'a2'],
      ['b2', 'b1'],
    ]);
    // a group of one response has nothing to pair: nothing is written (exit 6)
    expect(await pairs(['--group-size', '1'])).toEqual({ code: 6, pairs: [] });
  });
});

describe('monitor: --window, --format-component, --correct-component', () => {
  // 10 prompts x 4 responses; "fm" is the format reward (always 1), "ok" the correctness (every other)
  const results = () => {
    const recs = [];
    for (let g = 0; g < 10; g++)
      for (let i = 0; i < 4; i++)
        recs.push({
          id: `${g}-${i}`,
          uid: `g${g}`,
          score: i % 2,
          valid: true,
          response_length: 10 + i,
          components: { fm: { score: 1, valid: true }, ok: { score: i % 2, valid: true } },
        });
    return recs;
  };
  const monitors = async (args: string[]) => {
    const r = await runCli(['monitor', put('mon.jsonl', jsonl(results())), '--json', ...args]);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    return { body, by: Object.fromEntries(body.monitors.map((m: Rec) => [m.monitor, m])) as Record<string, Rec> };
  };

  it('--window n: only the last n results are seen', async () => {
    const base = await monitors([]);
    expect(base.by.invalid_rate!.n).toBe(40);
    const w = await monitors(['--window', '8']);
    expect(w.by.invalid_rate!.n).toBe(8);
    expect(w.by.reward_length_correlation!.n).toBe(8);
  });

  it('--seed: the random-reward control is drawn from the seed (the same seed, the same draw)', async () => {
    const control = async (args: string[]) => (await monitors(args)).by.spurious_reward_control!.details.random_within_variance as number;
    const one = await control(['--seed', '1']);
    expect(await control([])).toBe(one); // the default seed is 1
    expect(await control(['--seed', '1'])).toBe(one);
    const others = await Promise.all(['2', '3', '4'].map((x) => control(['--seed', x])));
    expect(others.some((v) => v !== one)).toBe(true);
  });

  it('--format-component and --correct-component: format saturation reads the components named, and needs both', async () => {
    const base = await monitors([]);
    // no component has a type the defaults recognise: nothing has both
    expect(base.by.format_saturation!.n).toBe(0);
    const onlyFormat = await monitors(['--format-component', 'fm']);
    expect(onlyFormat.by.format_saturation!.n).toBe(0);
    const both = await monitors(['--format-component', 'fm', '--correct-component', 'ok']);
    expect(both.by.format_saturation!.n).toBe(40);
    // every response is well formatted: the format reward is saturated
    expect(both.by.format_saturation!.value).toBe(1);
  });
});

describe('the labelled eval suites: --label, --threshold, --range, --bins, --group', () => {
  // score p, two labels, two groupings
  const rows: [number, boolean, boolean, string, string][] = [
    [0.9, true, false, 'a', 'z'],
    [0.2, false, false, 'a', 'z'],
    [0.6, true, true, 'b', 'z'],
    [0.7, false, true, 'b', 'z'],
    [0.4, true, true, 'c', 'c'],
    [0.3, false, true, 'c', 'c'],
  ];
  const file = () => put('lab.jsonl', jsonl(rows.map(([p, label, gold, group, g2]) => ({ item: {}, output_text: 'x', p, label, gold, group, g2 }))));
  const report = async (suite: string, args: string[]) => {
    const out = join(dir, `${suite}.json`);
    const r = await runCli(['eval', suite, file(), '--score-field', 'p', '--json', out, '--no-progress', ...args]);
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(readFileSync(out, 'utf8'));
    return Object.fromEntries(rep.headline.map((h: Rec) => [h.label, h.value])) as Record<string, number>;
  };
  const agreement = (labels: boolean[], t: number) => (100 * rows.filter(([p], i) => p >= t === labels[i]).length) / rows.length;
  const labels = rows.map((r) => r[1]);
  const golds = rows.map((r) => r[2]);

  it('agreement --label and --threshold', async () => {
    expect((await report('agreement', []))['Agreement with labels']).toBeCloseTo(agreement(labels, 0.5), 9);
    expect((await report('agreement', ['--label', 'gold']))['Agreement with labels']).toBeCloseTo(agreement(golds, 0.5), 9);
    expect((await report('agreement', ['--threshold', '0.35']))['Agreement with labels']).toBeCloseTo(agreement(labels, 0.35), 9);
    // the three differ, so each option is seen
    expect(new Set([agreement(labels, 0.5), agreement(golds, 0.5), agreement(labels, 0.35)]).size).toBe(3);
  });

  it('calibration --label, --range and --bins', async () => {
    const brier = (ys: boolean[], scale: number) => rows.reduce((s, [p], i) => s + (p / scale - (ys[i] ? 1 : 0)) ** 2, 0) / rows.length;
    expect((await report('calibration', []))['Brier score']).toBeCloseTo(brier(labels, 1), 9);
    expect((await report('calibration', ['--label', 'gold']))['Brier score']).toBeCloseTo(brier(golds, 1), 9);
    expect((await report('calibration', ['--range', '0,2']))['Brier score']).toBeCloseTo(brier(labels, 2), 9);
    // ECE over b equal-width bins: sum over bins of |mean p - mean label| weighted by the bin's share
    const ece = (b: number) => {
      let e = 0;
      for (let k = 0; k < b; k++) {
        const inBin = rows.filter(([p]) => Math.min(b - 1, Math.floor(p * b)) === k);
        if (!inBin.length) continue;
        const mp = inBin.reduce((s, r) => s + r[0], 0) / inBin.length;
        const ml = inBin.filter((r) => r[1]).length / inBin.length;
        e += (inBin.length / rows.length) * Math.abs(mp - ml);
      }
      return e;
    };
    expect((await report('calibration', []))['Expected calibration error']).toBeCloseTo(ece(10), 9);
    expect((await report('calibration', ['--bins', '2']))['Expected calibration error']).toBeCloseTo(ece(2), 9);
    expect(ece(2)).not.toBeCloseTo(ece(10), 3);
  });

  it('bon --label and --group', async () => {
    // best of 2 per group: the candidate with the highest p; accuracy = share of groups whose pick is labelled correct
    const pickAcc = (ys: boolean[], key: 3 | 4) => {
      const groups = new Map<string, number[]>();
      rows.forEach((r, i) => groups.set(r[key], [...(groups.get(r[key]) ?? []), i]));
      let ok = 0;
      let n = 0;
      for (const idx of groups.values()) {
        if (idx.length < 2) continue;
        // N=2 over all 2-subsets of the group: the exact expectation
        let hits = 0;
        let subsets = 0;
        for (let x = 0; x < idx.length; x++)
          for (let y = x + 1; y < idx.length; y++) {
            const [i, j] = [idx[x]!, idx[y]!];
            hits += ys[rows[i]![0] >= rows[j]![0] ? i : j]! ? 1 : 0;
            subsets++;
          }
        ok += hits / subsets;
        n++;
      }
      return (100 * ok) / n;
    };
    const base = await report('bon', ['--max-n', '2']);
    expect(base['Accuracy of the pick at N=2']).toBeCloseTo(pickAcc(labels, 3), 9);
    expect(base.Prompts).toBe(3);
    const gold = await report('bon', ['--max-n', '2', '--label', 'gold']);
    expect(gold['Oracle at N=2 (any correct)']).toBeCloseTo((100 * 2) / 3, 9);
    expect(gold['Accuracy of the pick at N=2']).toBeCloseTo(pickAcc(golds, 3), 9);
    const g2 = await report('bon', ['--max-n', '2', '--group', 'g2']);
    expect(g2.Prompts).toBe(2);
    expect(g2['Accuracy of the pick at N=2']).toBeCloseTo(pickAcc(labels, 4), 9);
  });

  it('--threshold is refused where nothing reads pass/fail (calibration, bon)', async () => {
    for (const suite of ['calibration', 'bon']) {
      const r = await runCli(['eval', suite, file(), '--score-field', 'p', '--threshold', '0.3']);
      expect(r.code, suite).toBe(2);
      expect(r.stderr).toMatch(/unknown option '--threshold'/);
    }
  });
});

describe('eval overopt: --uid, --proxy, --gold, --kl', () => {
  const rows = [
    { uid: 'a', u2: 'x', proxy: 0.9, px: 0.5, gold: 0.1, gd: 0.2 },
    { uid: 'a', u2: 'x', proxy: 0.2, px: 0.1, gold: 0.7, gd: 0.9 },
    { uid: 'b', u2: 'x', proxy: 0.6, px: 0.8, gold: 1.0, gd: 0.0 },
    { uid: 'b', u2: 'x', proxy: 0.7, px: 0.3, gold: 0.0, gd: 1.0 },
  ];
  const run = async (args: string[], data: unknown[] = rows) => {
    const out = join(dir, 'overopt.json');
    const r = await runCli(['eval', 'overopt', put('oo.jsonl', jsonl(data)), '--json', out, '--no-progress', ...args]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(readFileSync(out, 'utf8')) as Rec;
  };
  const head = (rep: Rec) => Object.fromEntries(rep.headline.map((h: Rec) => [h.label, h.value])) as Record<string, number>;
  /** Gold of the proxy's pick among all candidates of each prompt (n = the prompt's size), averaged. */
  const goldOfPick = (groupKey: string, proxy: string, gold: string) => {
    const groups = new Map<string, Rec[]>();
    for (const r of rows as Rec[]) groups.set(r[groupKey], [...(groups.get(r[groupKey]) ?? []), r]);
    const picks = [...groups.values()].map((g) => g.reduce((a, b) => (b[proxy] > a[proxy] ? b : a)));
    return picks.reduce((s, p) => s + p[gold], 0) / picks.length;
  };

  it('--proxy and --gold name the fields the pick and its gold come from', async () => {
    expect(head(await run([]))['Gold of the pick at n=2']).toBeCloseTo(goldOfPick('uid', 'proxy', 'gold'), 9);
    expect(head(await run(['--proxy', 'px']))['Gold of the pick at n=2']).toBeCloseTo(goldOfPick('uid', 'px', 'gold'), 9);
    expect(head(await run(['--gold', 'gd']))['Gold of the pick at n=2']).toBeCloseTo(goldOfPick('uid', 'proxy', 'gd'), 9);
  });

  it('--max-n caps N, the largest n on the curve', async () => {
    const ns = (rep: Rec) => (rep.plots.find((p: Rec) => p.id === 'bon-gold').series[0].points as Rec[]).map((p) => p.n);
    expect(ns(await run([]))).toEqual([1, 2]);
    expect(ns(await run(['--max-n', '1']))).toEqual([1]);
  });

  it('--uid names the field that groups the candidates of one prompt', async () => {
    const base = head(await run([]));
    expect(base.Prompts).toBe(2);
    const one = head(await run(['--uid', 'u2']));
    expect(one.Prompts).toBe(1);
    expect(one['Gold of the pick at n=4']).toBeCloseTo(goldOfPick('u2', 'proxy', 'gold'), 9);
  });

  it('--kl names the KL column of a scored RL log, averaged per global_step', async () => {
    const log = [
      { uid: 'a', global_step: 1, proxy: 0.5, gold: 0.5, kl: 0.01, kl2: 0.3 },
      { uid: 'a', global_step: 1, proxy: 0.6, gold: 0.4, kl: 0.03, kl2: 0.5 },
      { uid: 'a', global_step: 2, proxy: 0.8, gold: 0.3, kl: 0.1, kl2: 0.9 },
      { uid: 'a', global_step: 2, proxy: 0.9, gold: 0.2, kl: 0.2, kl2: 1.1 },
    ];
    const klAt = (rep: Rec) => rep.metrics?.steps?.kl_at_step ?? findKey(rep, 'kl_at_step');
    expect(klAt(await run([], log))).toEqual({ 1: expect.closeTo(0.02, 9), 2: expect.closeTo(0.15, 9) });
    expect(klAt(await run(['--kl', 'kl2'], log))).toEqual({ 1: expect.closeTo(0.4, 9), 2: expect.closeTo(1.0, 9) });
  });
});

/** The first value under `key` anywhere in a report. */
function findKey(o: unknown, key: string): unknown {
  if (!o || typeof o !== 'object') return undefined;
  if (key in (o as Rec)) return (o as Rec)[key];
  for (const v of Object.values(o as Rec)) {
    const f = findKey(v, key);
    if (f !== undefined) return f;
  }
  return undefined;
}

describe('eval prmbench --threshold', () => {
  it('a step is predicted correct only when its score is above the threshold: at 1 no 0/1 label is', async () => {
    const data = readFileSync(dataPath('prmbench/prm800k_test_p1_4o_circular.jsonl'), 'utf8');
    const file = put('prm3.jsonl', data.split('\n').slice(0, 3).join('\n') + '\n');
    const run = async (args: string[]) => {
      const out = join(dir, 'prm.json');
      const r = await runCli(['eval', 'prmbench', file, '--grader', 'examples/prm/prmbench-labels.json', '--json', out, '--no-progress', ...args]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(readFileSync(out, 'utf8')).metrics.overall as Rec;
    };
    const base = await run([]);
    // the labels protocol reproduces the data's own labels: every step right at 0.5
    expect(base.FP + base.FN).toBe(0);
    expect(base.TP).toBeGreaterThan(0);
    const strict = await run(['--threshold', '1']);
    // scores are 0 or 1, none above 1: every correct step becomes a false negative, every error step stays a true negative
    expect(strict.TP).toBe(0);
    expect(strict.FN).toBe(base.TP);
    expect(strict.TN).toBe(base.TN);
  });
});

describe('eval --concurrency (one mechanism, runUnits, for every live suite)', () => {
  // The judge holds each request until `barrier` are in flight, then answers them together: a run
  // that sends fewer at once never completes (the test times out), one that sends more is seen.
  let server: TestServer;
  let barrier = 1;
  let inFlight = 0;
  let peak = 0;
  let held: (() => void)[] = [];
  beforeAll(async () => {
    server = await startTestServer({
      chat: async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise<void>((release) => {
          held.push(release);
          if (held.length >= barrier) {
            const now = held;
            held = [];
            for (const r of now) r();
          }
        });
        inFlight--;
        return { content: 'Score: 1' };
      },
    });
  });
  afterAll(() => server.close());

  it('--concurrency c: exactly c units are graded at once', { timeout: 120_000 }, async () => {
    const grader = put(
      'judge.json',
      JSON.stringify({
        type: 'score_model',
        model: 'judge',
        base_url: server.url,
        cache: false,
        range: [0, 1],
        input: [{ role: 'user', content: 'Rate: {{sample.output_text}}' }],
      }),
    );
    const data = put('six.jsonl', jsonl(Array.from({ length: 6 }, (_, i) => ({ item: {}, output_text: `answer ${i}`, label: i % 2 === 0 }))));
    for (const c of [2, 3]) {
      barrier = c;
      peak = 0;
      const r = await runCli(['eval', 'agreement', data, '--grader', grader, '--concurrency', String(c), '--no-progress']);
      expect(r.code, r.stderr).toBe(0);
      expect(peak, `--concurrency ${c}`).toBe(c);
    }
  });
});

describe('eval --recorded: a records file of a live run re-scored without grading gives the same report', () => {
  const grader = () => put('good.json', JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: 'good', operation: 'like' }));
  const labelled = () =>
    put(
      'rec.jsonl',
      jsonl(
        ['good one', 'bad one', 'good two', 'a good three', 'bad four', 'none'].map((t, i) => ({
          item: {},
          output_text: t,
          label: i % 3 !== 1,
          group: `g${i >> 1}`,
        })),
      ),
    );
  const prefs = () =>
    put(
      'prefs.jsonl',
      jsonl([
        { question: 'q1', chosen: 'a good answer', rejected: 'a bad answer' },
        { question: 'q2', chosen: 'meh', rejected: 'good but wrong' },
        { question: 'q3', chosen: 'good', rejected: 'good' },
      ]),
    );
  const cases: [string, () => string[]][] = [
    ['agreement', () => [labelled()]],
    ['calibration', () => [labelled(), '--bins', '2']],
    ['bon', () => [labelled(), '--max-n', '2']],
    ['preference', () => [prefs(), '--mode', 'pointwise']],
  ];
  for (const [suite, args] of cases) {
    it(`${suite} --recorded`, { timeout: 120_000 }, async () => {
      const records = join(dir, `${suite}-records.jsonl`);
      const live = join(dir, `${suite}-live.json`);
      const again = join(dir, `${suite}-again.json`);
      const a = await runCli(['eval', suite, ...args(), '--grader', grader(), '--records', records, '--json', live, '--no-progress']);
      expect(a.code, a.stderr).toBe(0);
      const rest = args().slice(1);
      const b = await runCli(['eval', suite, '--recorded', records, ...rest, '--json', again, '--no-progress']);
      expect(b.code, b.stderr).toBe(0);
      const head = (f: string) => (JSON.parse(readFileSync(f, 'utf8')).headline as Rec[]).map((h) => [h.label, h.value]);
      expect(head(again)).toEqual(head(live));
      expect(head(live).length).toBeGreaterThan(0);
      // without the records (and without a grader) there is nothing to score: refused
      const none = await runCli(['eval', suite, ...rest, '--no-progress']);
      expect(none.code).toBe(2);
    });
  }
});
