// Hostile suite, budgets and hand-offs (issue 11 items 1-2), through the real CLI and real HTTP:
// each case is an attack that froze or killed the engine, with its bound. Bounds are generous
// vitest timeouts and counts (lines out = lines in), never elapsed-time assertions; on the old
// code each case either failed its assertion or ran past its bound.
//   - a value nested 5,000 deep through a `threads` grader: `arbiter score` exited 1 writing no
//     line; `arbiter serve` died on one POST (/v1/score item, /get_reward metas);
//   - four regexes that backtrack catastrophically ((a|a)*$, (a+){12}$, a*a*a*a*a*a*b,
//     (.*?,){11}P): timeout_ms never fired (minutes to forever on the inputs here);
//   - IFEval response_language on 190,000 characters (a run without spaces: ~53 s; CJK: > 150 s);
//   - length in tokens on text the BPE fast path grinds through (~12 s for 200,000 characters,
//     budget 2 s, never checked);
//   - the server answering /healthz while a grade grinds (it waited for the grade).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { serve, type ServeProcess } from '../server/serve-process.js';

const dir = mkdtempSync(join(tmpdir(), 'arbiter-hostile-budgets-'));
const file = (name: string, content: string) => {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};
const jsonl = (rows: unknown[]) => rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';
const lines = (p: string) =>
  readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** A JSON text nested `depth` arrays deep (10 KB for 5,000). */
const deepJson = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Runs `arbiter score` on rows with a grader; resolves with the exit code and the output lines. */
async function score(grader: unknown, rows: unknown[], name: string) {
  const g = file(`${name}.grader.json`, JSON.stringify(grader));
  const input = file(`${name}.jsonl`, jsonl(rows));
  const out = join(dir, `${name}.out.jsonl`);
  const r = await runCli(['score', '--grader', g, input, '-o', out, '--no-progress'], { timeoutMs: 50_000 });
  return { ...r, out: r.code === 0 ? lines(out) : [] };
}

const THREADED_CHECK = {
  type: 'threads',
  threads: 1,
  grader: { type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.answer}}', operation: 'eq' },
};
const BOUND = 60_000;

/** Text that makes BPE slow: 64-character runs of CJK characters (one pre-token each, ~60 µs/char). */
function bpeHostile(n: number): string {
  let s = '';
  for (let i = 0; s.length < n; ) {
    for (let k = 0; k < 64; k++, i++) s += String.fromCharCode(0x4e00 + ((i * 7919) % 20000));
    s += ' ';
  }
  return s.slice(0, n);
}
const cjk = (n: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join('');

describe('hostile: a deep value through a threads grader (bound: one line out per line in, exit 0)', () => {
  it('arbiter score grades every line; the deep one is limit_exceeded', { timeout: BOUND }, async () => {
    const rows = [
      { id: 'a', item: { answer: '1' }, sample: { output_text: '1' } },
      `{"id":"b","item":{"answer":"1","x":${deepJson(5000)}},"sample":{"output_text":"1"}}`,
      { id: 'c', item: { answer: '1' }, sample: { output_text: '2' } },
    ];
    const r = await score(THREADED_CHECK, rows, 'deep');
    expect(r.code, r.stderr).toBe(0);
    expect(r.out.map((l) => [l.id, l.score])).toEqual([
      ['a', 1],
      ['b', null],
      ['c', 0],
    ]);
    expect(r.out[1]).toMatchObject({ valid: false, error: { kind: 'limit_exceeded', message: expect.stringMatching(/deep|depth|nest/i) } });
  });

  describe('arbiter serve survives deep POSTs (bound: the process stays up and answers)', () => {
    let srv: ServeProcess;
    beforeAll(async () => {
      // the parse-time depth bound is raised so that the deep value reaches the worker hand-off
      srv = await serve(['--max-json-depth', '100000', '--grader', `check=${file('serve-threads.json', JSON.stringify(THREADED_CHECK))}`]);
    });
    afterAll(async () => {
      await srv?.stop();
    });
    const post = async (path: string, body: string) => {
      const res = await fetch(`${srv.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: res.status, body: (await res.json()) as any };
    };

    it('/v1/score with a deep item: that sample is limit_exceeded, the others are graded', { timeout: BOUND }, async () => {
      const body = `{"samples":[{"item":{"answer":"1"},"sample":{"output_text":"1"}},{"item":{"answer":"1","x":${deepJson(5000)}},"sample":{"output_text":"1"}}]}`;
      const r = await post('/v1/score', body);
      expect(r.status).toBe(200);
      expect(r.body.results.map((x: { score: number | null }) => x.score)).toEqual([1, null]);
      expect(r.body.results[1].error.kind).toBe('limit_exceeded');
    });

    it('/get_reward with deep metas: a reward per query, and the server still answers', { timeout: BOUND }, async () => {
      const r = await post('/get_reward', `{"query":["1","1"],"labels":["1","1"],"metas":[{},{"x":${deepJson(5000)}}]}`);
      expect(r.status).toBe(200);
      expect(r.body.rewards).toHaveLength(2);
      const h = await fetch(`${srv.url}/healthz`);
      expect(h.status).toBe(200);
      expect(srv.child.exitCode).toBe(null);
    });
  });
});

describe('hostile: catastrophic-backtracking regexes (bound: each CLI run finishes before its vitest timeout)', () => {
  // [pattern, hostile text, expected score on it, a text it matches]
  const cases: [string, string, number, string][] = [
    ['(a|a)*$', 'a'.repeat(40) + '!', 1, 'aaaa'], // search: the empty match at the end counts
    ['(a+){12}$', 'a'.repeat(60) + '!', 0, 'a'.repeat(60)],
    ['a*a*a*a*a*a*b', 'a'.repeat(5000), 0, 'aaab'],
    ['(.*?,){11}P', ','.repeat(200), 0, ','.repeat(11) + 'P'],
  ];
  it.each(cases)('format regex %s with timeout_ms 1000 grades both lines correctly', { timeout: BOUND }, async (pattern, hostile, want, matching) => {
    const grader = { type: 'format', check: 'regex', pattern, timeout_ms: 1000 };
    const r = await score(
      grader,
      [
        { item: {}, output_text: hostile },
        { item: {}, output_text: matching },
      ],
      `re-${cases.findIndex((c) => c[0] === pattern)}`,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.out.map((l) => [l.valid, l.score])).toEqual([
      [true, want],
      [true, 1],
    ]);
  });

  it('a JSON Schema "pattern" runs on the same engine; lookahead in it is refused at load', { timeout: BOUND }, async () => {
    const grader = { type: 'format', check: 'json', schema: { type: 'string', pattern: '^(a|a)*$' } };
    const r = await score(
      grader,
      [
        { item: {}, output_text: JSON.stringify('a'.repeat(40) + '!') },
        { item: {}, output_text: '"aaa"' },
      ],
      'schema-pattern',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.out.map((l) => l.score)).toEqual([0, 1]);
    const bad = await score(
      { type: 'format', check: 'json', schema: { type: 'string', pattern: 'a(?=b)' } },
      [{ item: {}, output_text: '"a"' }],
      'schema-lookahead',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/schema.*lookahead/);
  });
});

describe('hostile: IFEval response_language on 190,000 characters (bound: the CLI run finishes before its vitest timeout)', () => {
  const ifeval = { type: 'ifeval', mode: 'loose', instruction_ids: ['language:response_language'], kwargs: [{ language: 'zh' }] };
  it.each([
    ['a run without spaces', 'a'.repeat(190_000)],
    ['CJK text', cjk(190_000)],
  ])('%s: graded, with the verdict of the text the detector reads (its first 10,000 characters)', { timeout: BOUND }, async (_what, text) => {
    // the detector looks at the first 10,000 characters, so a 14,000-character prefix must agree
    const r = await score(
      ifeval,
      [
        { item: {}, output_text: text },
        { item: {}, output_text: text.slice(0, 14_000) },
      ],
      `lang-${text.charCodeAt(0)}`,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.out.every((l) => l.valid)).toBe(true);
    expect(r.out[0].score).toBe(r.out[1].score);
  });
});

describe('hostile: length in tokens past its work budget (bound: limit_exceeded, one line out per line in)', () => {
  it('arbiter score refuses the text past the work budget (limit_exceeded), and grades the ordinary line', { timeout: BOUND }, async () => {
    const r = await score(
      { type: 'length', unit: 'tokens', budget: 1000 },
      [
        { item: {}, output_text: bpeHostile(200_000) },
        { item: {}, output_text: 'a short answer' },
      ],
      'tokens',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.out[0]).toMatchObject({ valid: false, error: { kind: 'limit_exceeded', message: expect.stringMatching(/units of BPE work/) } });
    expect(r.out[1]).toMatchObject({ valid: true, metadata: { length: 3 } });
  });
});

describe('hostile: /healthz answers while a grade grinds (bound: seen in flight before the grade returns)', () => {
  let srv: ServeProcess;
  beforeAll(async () => {
    srv = await serve(['--grader', `len=${file('serve-length.json', JSON.stringify({ type: 'length', unit: 'tokens', budget: 1000 }))}`]);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('a BPE-hostile /v1/score is graded in a killable worker: /healthz reports it in flight, and it ends limit_exceeded', { timeout: BOUND }, async () => {
    // warm up first (tokenizer loaded, worker started), so nothing but the grade itself can yield
    const warm = (await (
      await fetch(`${srv.url}/v1/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ samples: [{ item: {}, sample: { output_text: 'warm up' } }] }),
      })
    ).json()) as any;
    expect(warm.results[0].valid).toBe(true);
    let done = false;
    const scoring = fetch(`${srv.url}/v1/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ samples: [{ item: {}, sample: { output_text: bpeHostile(200_000) } }] }),
    })
      .then((res) => res.json())
      .finally(() => (done = true));
    // Poll /healthz (no sleeps) until it reports the grade in flight. On the event loop the grade
    // blocked every request until it returned, so no health answer could ever see it in flight.
    let seenInFlight = false;
    let doneWhenSeen = true;
    for (let polls = 0; polls < 100_000 && !done && !seenInFlight; polls++) {
      const h = (await (await fetch(`${srv.url}/healthz`)).json()) as { in_flight: number };
      if (h.in_flight >= 1) {
        seenInFlight = true;
        doneWhenSeen = done;
      }
    }
    const body = (await scoring) as { results: { valid: boolean; error?: { kind: string } }[] };
    expect(seenInFlight).toBe(true);
    expect(doneWhenSeen).toBe(false);
    expect(body.results[0]).toMatchObject({ valid: false, error: { kind: 'limit_exceeded' } });
  });
});
