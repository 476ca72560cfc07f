// Test-time search against a scripted OpenAI-compatible generator and a scripted PRM (real HTTP):
// best-of-N, majority voting (plain, weighted), beam search and DVTS pick what they should, send the
// requests they should, honour sample and token budgets, and `arbiter search` writes the table,
// the JSON report and the SVG plot.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  Generator,
  loadGrader,
  majorityVote,
  bestOfN,
  prepareSearch,
  runSearch,
  searchPlotSvg,
  Services,
  stepSearch,
  type StepSearchOptions,
  verifyCandidates,
} from '../../dist/index.js';
import { runCli } from '../helpers/cli.js';
import type { RecordedRequest, Reply } from '../helpers/openai-test-server.js';
import { startPrmServer, type PrmServer } from '../helpers/prm-server.js';

let srv: PrmServer;
let services: Services;

// whole solutions per question, handed out in order across requests
const SOLUTIONS: Record<string, string[]> = {
  'Q1?': ['bad start\n\nso \\boxed{5}', 'good start\n\ngood so \\boxed{4}', 'bad\n\n\\boxed{4}', 'bad\n\nhence \\boxed{4}'],
  'Q2?': ['good\n\n\\boxed{7}', 'good\n\n\\boxed{7}', 'good\n\n\\boxed{7}', 'good\n\n\\boxed{7}'],
};
// next steps by (question, partial solution)
const TREE: Record<string, string[]> = {
  '': ['good A', 'bad B', 'good C', 'bad D'],
  'good A\n\n': ['good A2', 'bad \\boxed{5}'],
  'good C\n\n': ['great \\boxed{4}', 'bad C2'],
  'good A\n\ngood A2\n\n': ['good \\boxed{4}', 'bad \\boxed{3}'],
  'good C\n\nbad C2\n\n': ['bad \\boxed{6}', 'bad \\boxed{6}'],
};
let handed: Record<string, number> = {};

function generatorReply(req: RecordedRequest): Reply {
  const msgs = req.body.messages as { role: string; content: string }[];
  const n = srv.server.ignoreN ? 1 : Number(req.body.n ?? 1);
  const user = msgs.find((m) => m.role === 'user')!.content;
  if (req.body.stop) {
    const last = msgs[msgs.length - 1]!;
    const partial = last.role === 'assistant' ? last.content : '';
    const next = TREE[partial] ?? ['bad \\boxed{0}'];
    return { choices: Array.from({ length: n }, (_, i) => ({ content: next[i % next.length]!, finish_reason: 'stop' })) };
  }
  const list = SOLUTIONS[user]!;
  const from = handed[user] ?? 0;
  handed[user] = from + n;
  return { choices: Array.from({ length: n }, (_, i) => ({ content: list[(from + i) % list.length]! })) };
}

beforeAll(async () => {
  srv = await startPrmServer();
  srv.server.onChat(generatorReply);
  // the PRM: steps saying "great" 0.95, "good" 0.9, anything else 0.2
  srv.script((s) => (s.includes('great') ? 0.95 : s.includes('good') ? 0.9 : 0.2));
});
afterAll(async () => {
  await srv?.close();
});
beforeEach(async () => {
  await services?.close();
  services = new Services();
  handed = {};
  srv.server.requests.length = 0;
  srv.server.ignoreN = false;
});

const generator = () => ({ model: 'policy', base_url: srv.url, api_key: 'EMPTY', temperature: 0.8, max_retries: 0 });
const prmCfg = (aggregate = 'last') => ({
  type: 'prm',
  protocol: 'vllm_pooling',
  model: 'prm',
  base_url: srv.url,
  api_key: 'EMPTY',
  question: '{{item.question}}',
  aggregate,
  max_retries: 0,
});
// the verifier scores a whole solution: its steps split by blank lines, min over steps
const verifierCfg = () => ({ ...prmCfg('min'), split: 'blank_lines' });

describe('selection', () => {
  it('best-of-N and weighted voting leave out candidates the verifier could not grade (never a 0); votes group equivalent answers', async () => {
    const cands = [
      { text: '\\boxed{0.5}', score: 0.4 },
      { text: 'x', invalid: 'timeout: slow' },
      { text: 'so \\boxed{\\frac{1}{2}}', score: 0.3 },
      { text: '\\boxed{2}', score: 0.6 },
    ];
    expect(bestOfN(cands)).toBe(3);
    expect(bestOfN([{ text: 'x', invalid: 'e' }])).toBe(-1);
    const w = majorityVote(cands, true);
    expect(w).toMatchObject({ index: 0, weight: 0.7 });
    expect(w.total).toBeCloseTo(1.3, 12);
    expect(w.groups.map((g) => g.members)).toEqual([[0, 2], [3]]);
    expect(majorityVote([{ text: 'no answer' }, { text: '\\boxed{3}' }], false)).toMatchObject({ index: 1, answer: '3' });
    // only marked answers vote: a bold step label or a last number is not a final answer
    expect(majorityVote([{ text: '**Step 2** add 5' }, { text: 'so x is 9' }], false)).toMatchObject({ index: -1 });
    // an invalid verifier grade stays out
    const g = loadGrader({ type: 'prm', protocol: 'labels', labels: '{{item.l}}' });
    const v = await verifyCandidates(g, { l: [1] }, ['one step', 'two\n\nsteps'], services);
    expect(v[0]).toEqual({ text: 'one step', score: 1 });
    expect(v[1]!.score).toBeUndefined();
    expect(v[1]!.invalid).toMatch(/^bad_input/);
  });
});

describe('runSearch: sampling methods over a pool of samples', () => {
  it('accuracy against N for best-of-N, majority and weighted majority; samples generated in rounds up to each N', async () => {
    const p = prepareSearch({ generator: generator(), verifier: verifierCfg(), methods: ['best_of_n', 'majority', 'weighted_majority'], n: [1, 2, 4] });
    const { report, problems } = await runSearch(p, [{ id: 'p1', question: 'Q1?', answer: '4' }, { item: { question: 'Q2?', answer: '7' } }], { services });
    // Q1: N=1 takes "5"; N=2: best/weighted take the good "4", the plain vote ties 5:4 and keeps the first; N=4: 4 wins 3:1
    expect(problems[0]!.attempts.best_of_n).toMatchObject({
      1: { correct: false, samples: 1 },
      2: { correct: true, samples: 2 },
      4: { correct: true, samples: 4 },
    });
    expect(problems[0]!.attempts.majority).toMatchObject({ 1: { correct: false }, 2: { correct: false }, 4: { correct: true } });
    expect(problems[0]!.attempts.weighted_majority).toMatchObject({ 1: { correct: false }, 2: { correct: true }, 4: { correct: true } });
    expect(report.accuracy).toEqual({ best_of_n: { 1: 0.5, 2: 1, 4: 1 }, majority: { 1: 0.5, 2: 0.5, 4: 1 }, weighted_majority: { 1: 0.5, 2: 1, 4: 1 } });
    expect(problems[1]!.id).toBe('2');
    // per problem: requests for 1, 1 and 2 more samples (4 in all, never more)
    const gen = srv.server.chatRequests.filter((r) => r.body.messages[0].content === 'Q1?');
    expect(gen.map((r) => r.body.n ?? 1)).toEqual([1, 1, 2]);
  });

  it('tops up with single requests when the server ignores n', async () => {
    srv.server.ignoreN = true;
    const p = prepareSearch({ generator: generator(), methods: ['majority'], n: [4] });
    const { problems } = await runSearch(p, [{ question: 'Q1?', answer: '4' }], { services });
    expect(problems[0]!.attempts.majority![4]).toMatchObject({ samples: 4, correct: true });
    expect(srv.server.chatRequests.length).toBe(4);
  });

  it('without use_n, single requests carry the configured seed, then the next ones', async () => {
    const p = prepareSearch({ generator: { ...generator(), seed: 7, use_n: false }, methods: ['majority'], n: [3] });
    await runSearch(p, [{ question: 'Q1?', answer: '4' }], { services });
    expect(srv.server.chatRequests.map((r) => [r.body.n, r.body.seed])).toEqual([
      [undefined, 7],
      [undefined, 8],
      [undefined, 9],
    ]);
  });

  it('a token budget stops new rounds: later N use the samples there are, and say so', async () => {
    const p = prepareSearch({ generator: generator(), methods: ['majority'], n: [1, 2, 4], token_budget: 1 });
    const { problems } = await runSearch(p, [{ question: 'Q1?', answer: '4' }], { services });
    expect(problems[0]!.attempts.majority![4]).toMatchObject({ samples: 1 });
    expect(problems[0]!.attempts.majority![4]!.note).toMatch(/token budget spent after 1 samples/);
    expect(srv.server.chatRequests.length).toBe(1);
  });

  it('settings that cannot hold are refused up front', () => {
    expect(() => prepareSearch({ generator: generator(), methods: ['best_of_n'] })).toThrow(/best_of_n needs "verifier"/);
    expect(() => prepareSearch({ generator: generator(), prm: prmCfg(), methods: ['beam'], n: [2, 8], beam_width: 4 })).toThrow(
      /n=2: the number of beams \(2\) must be a multiple of beam_width \(4\)/,
    );
    expect(() => prepareSearch({ generator: generator(), bogus: 1 })).toThrow(/unknown field/);
    expect(() => prepareSearch({ generator: generator(), verifier: { type: 'nope' }, methods: ['best_of_n'] })).toThrow(
      /verifier: [\s\S]*unknown grader type "nope"/,
    );
  });
});

/** PRM-guided step search on one question with the scripted generator and PRM ("last" step score). */
function searchSteps(question: string, o: Pick<StepSearchOptions, 'n' | 'beamWidth'> & Partial<StepSearchOptions>) {
  return stepSearch({
    generator: new Generator(generator()),
    prm: loadGrader(prmCfg('last')),
    services,
    input: { item: { question }, sample: {} },
    cost: { requests: 0, completion_tokens: 0, prompt_tokens: 0, unreported: 0 },
    ...o,
  });
}

describe('PRM-guided step search', () => {
  it('beam search: N first steps, the best N/M kept and expanded M ways (continuing the partial as the assistant turn), best finished solution chosen', async () => {
    const r = await searchSteps('Q1?', { n: 4, beamWidth: 2 });
    expect(r.best).toMatchObject({ steps: ['good C', 'great \\boxed{4}'], score: 0.95, done: true, ended: 'answer' });
    expect(r.finished.map((b) => b.steps.join(' | '))).toContain('good A | good A2 | good \\boxed{4}');
    expect(r.rounds).toBe(3);
    const reqs = srv.server.chatRequests;
    expect(reqs[0]!.body).toMatchObject({ n: 4, stop: ['\n\n'] });
    expect(reqs[0]!.body.messages).toEqual([{ role: 'user', content: 'Q1?' }]);
    const second = reqs.slice(1, 3).map((q) => q.body);
    for (const b of second) expect(b).toMatchObject({ n: 2, stop: ['\n\n'], continue_final_message: true, add_generation_prompt: false });
    expect(second.map((b) => b.messages[1].content).sort()).toEqual(['good A\n\n', 'good C\n\n']);
    // the PRM saw each partial solution as its steps
    expect(srv.requests('pooling').length).toBeGreaterThan(0);
  });

  it('DVTS: N/M subtrees, each continued greedily with its best of M children', async () => {
    const r = await searchSteps('Q1?', { n: 4, beamWidth: 2, diverse: true });
    expect(r.finished).toHaveLength(2);
    for (const b of r.finished) expect(b.steps).toEqual(['good A', 'good A2', 'good \\boxed{4}']);
    const reqs = srv.server.chatRequests;
    expect(reqs).toHaveLength(6); // 3 rounds x 2 subtrees
    for (const q of reqs) expect(q.body.n).toBe(2);
  });

  it('a token budget stops the search after the round that spent it; the best partial is returned, unfinished', async () => {
    const cost = { requests: 0, completion_tokens: 0, prompt_tokens: 0, unreported: 0 };
    const r = await searchSteps('Q1?', { n: 4, beamWidth: 2, tokenBudget: 1, cost });
    expect(r).toMatchObject({ stopped: 'token_budget', rounds: 1, finished: [] });
    expect(r.best!.done).toBe(false);
    expect(cost.completion_tokens).toBeGreaterThan(0);
    expect(srv.server.chatRequests).toHaveLength(1);
  });

  it('a step the model ends itself (vLLM stop_reason null) finishes the beam; a stop at the delimiter does not', async () => {
    const body = (stop_reason: string | null, content: string) => ({
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: 'policy',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', stop_reason }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
    srv.server.enqueue({ body: body('\n\n', 'good first') }, { body: body(null, 'good end without a box') });
    const r = await searchSteps('Q3?', { n: 1, beamWidth: 1 });
    expect(r.best).toMatchObject({ steps: ['good first', 'good end without a box'], done: true, ended: 'eos' });
    expect(r.rounds).toBe(2);
  });

  it('a partial solution the PRM cannot grade is dropped, not kept with a made-up score', async () => {
    srv.mutate('pooling', (body, req) => {
      // every partial solution starting with "good C" gets an unreadable step score (inputs are batched)
      (req.body.input as string[]).forEach((t, i) => {
        if (t.includes('assistant\ngood C')) body.data[i].data[0] = [null, null];
      });
      return body;
    });
    try {
      const r = await searchSteps('Q1?', { n: 4, beamWidth: 2 });
      expect(r.prm_invalid).toBeGreaterThan(0);
      for (const b of r.finished) expect(b.steps[0]).not.toBe('good C');
      expect(r.best!.steps).toEqual(['good A', 'good A2', 'good \\boxed{4}']);
    } finally {
      srv.mutate('pooling', undefined);
    }
  });
});

describe('arbiter search (CLI)', () => {
  it('prints the accuracy table and writes the JSON report, the SVG plot and per-problem records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-search-'));
    const cfg = join(dir, 'search.json');
    const data = join(dir, 'data.jsonl');
    writeFileSync(
      cfg,
      JSON.stringify({
        generator: generator(),
        verifier: verifierCfg(),
        prm: prmCfg('last'),
        methods: ['best_of_n', 'weighted_majority', 'beam', 'dvts'],
        n: [2, 4],
        beam_width: 2,
      }),
    );
    writeFileSync(data, `${JSON.stringify({ id: 'a', question: 'Q1?', answer: '4' })}\n`);
    const out = { json: join(dir, 'r.json'), plot: join(dir, 'r.svg'), recs: join(dir, 'p.jsonl') };
    const r = await runCli(['search', data, '--config', cfg, '--json', out.json, '--plot', out.plot, '--out', out.recs]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('| method | N=2 | N=4 |');
    expect(r.stdout).toMatch(/\| best_of_n \| 100\.0% \(\d+ tok\) \| 100\.0% \(\d+ tok\) \|/);
    const rep = JSON.parse(readFileSync(out.json, 'utf8'));
    expect(rep.accuracy.beam).toEqual({ 2: 1, 4: 1 });
    expect(rep.accuracy.best_of_n).toEqual({ 2: 1, 4: 1 });
    const svg = readFileSync(out.plot, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(4);
    for (const m of ['best_of_n', 'weighted_majority', 'beam', 'dvts']) expect(svg).toContain(`>${m}</text>`);
    const recs = readFileSync(out.recs, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(recs[0]).toMatchObject({ id: 'a', gradable: true, attempts: { beam: { 2: { correct: true } } } });
  });

  it('--methods, --limit and --token-budget override the config', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-search-'));
    const cfg = join(dir, 'search.json');
    const data = join(dir, 'data.jsonl');
    writeFileSync(
      cfg,
      JSON.stringify({ generator: generator(), verifier: verifierCfg(), prm: prmCfg('last'), methods: ['best_of_n', 'beam'], n: [4], beam_width: 2 }),
    );
    writeFileSync(
      data,
      [
        { id: 'a', question: 'Q1?', answer: '4' },
        { id: 'b', question: 'Q2?', answer: '7' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    const run = async (args: string[]) => {
      const out = { json: join(dir, 'r.json'), recs: join(dir, 'p.jsonl') };
      handed = {};
      const r = await runCli(['search', data, '--config', cfg, '--json', out.json, '--out', out.recs, ...args]);
      expect(r.code, r.stderr).toBe(0);
      const recs = readFileSync(out.recs, 'utf8').trim().split('\n');
      return { rep: JSON.parse(readFileSync(out.json, 'utf8')), problems: recs.length };
    };
    const base = await run([]);
    expect(Object.keys(base.rep.accuracy).sort()).toEqual(['beam', 'best_of_n']);
    expect(base.problems).toBe(2);
    const only = await run(['--methods', 'best_of_n']);
    expect(Object.keys(only.rep.accuracy)).toEqual(['best_of_n']);
    expect((await run(['--limit', '1'])).problems).toBe(1);
    // a budget of one completion token is spent by the N=1 draw, so N=4 draws nothing more (the
    // budget is checked before each N's draw)
    const all = await run(['--methods', 'best_of_n', '--n', '1,4']);
    expect(all.rep.mean_samples.best_of_n[4]).toBe(4);
    const tight = await run(['--methods', 'best_of_n', '--n', '1,4', '--token-budget', '1']);
    expect(tight.rep.mean_samples.best_of_n[4]).toBe(1);
    // --progress draws the progress line on stderr (not a terminal here), --no-progress never does
    const cfgArgs = ['search', data, '--config', cfg, '--methods', 'best_of_n', '--n', '1', '--limit', '1'];
    const shown = await runCli([...cfgArgs, '--progress']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toMatch(/search: .*1\/1 problems/);
    const quiet = await runCli([...cfgArgs, '--no-progress']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/problems/);
  });

  it('a config that cannot run exits 2 with one clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-search-'));
    const cfg = join(dir, 'search.json');
    writeFileSync(cfg, JSON.stringify({ generator: generator(), prm: prmCfg(), methods: ['dvts'], n: [3], beam_width: 2 }));
    writeFileSync(join(dir, 'd.jsonl'), '{"question": "q", "answer": "1"}\n');
    const r = await runCli(['search', join(dir, 'd.jsonl'), '--config', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/n=3: the number of beams \(3\) must be a multiple of beam_width \(2\)/);
  });

  it('the plot is a well-formed SVG (one line per method, legend)', () => {
    const svg = searchPlotSvg({
      n: [1, 4],
      methods: ['majority'],
      problems: 1,
      gradable: 1,
      failed: 0,
      accuracy: { majority: { 1: 0.25, 4: 0.75 } },
      mean_tokens: {},
      mean_samples: {},
    });
    expect(svg).toMatch(/<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="60\.0,\d+\.\d+ 470\.0,\d+\.\d+"\/>/);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
  });
});
