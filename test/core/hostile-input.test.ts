// Hostile input through the real surfaces: the built CLI (dist/cli/main.js as a child process) and
// `arbiter serve` over loopback HTTP. Every case states its bound: one output line per input line,
// the process survives, ids come back byte-exact, resume neither loses nor duplicates a line, and a
// signal leaves a complete output prefix plus a summary. Time budgets are the generous test
// timeouts; nothing here sleeps: signals are sent after an output or server event.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, runCli } from '../helpers/cli.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../helpers/openai-test-server.js';
import { serve, type ServeProcess } from '../server/serve-process.js';

let dir: string;
let exact: string; // string_check, output_text == item.answer
let threads: string; // the same inside a `threads` grader (worker hand-off)
let tools: string; // string_check over sample.output_tools

const DEEP = 5000; // nesting that overflowed structured clone / JSON.stringify: 10 KB of brackets
const deepArray = (inner = '"a"') => '['.repeat(DEEP) + inner + ']'.repeat(DEEP);
const outLines = (text: string) => text.split('\n').filter((l, i, a) => i < a.length - 1 || l !== '');
const parse = (text: string) => outLines(text).map((l) => JSON.parse(l));
const rec = (id: unknown, answer: string, output: string) =>
  JSON.stringify(id === undefined ? { item: { answer }, output_text: output } : { id, item: { answer }, output_text: output });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arbiter-hostile-input-'));
  const check = { type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.answer}}', operation: 'eq' };
  exact = join(dir, 'exact.json');
  writeFileSync(exact, JSON.stringify(check));
  threads = join(dir, 'threads.json');
  writeFileSync(threads, JSON.stringify({ type: 'threads', threads: 1, grader: check }));
  tools = join(dir, 'tools.json');
  writeFileSync(tools, JSON.stringify({ type: 'string_check', input: '{{sample.output_tools}}', reference: '{{item.answer}}', operation: 'eq' }));
});

function file(name: string, content: string | Buffer): string {
  const f = join(dir, name);
  writeFileSync(f, content);
  return f;
}

/** A CLI child whose stdin stays open, with events for stdout lines and exit. */
function spawnCli(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: { n: number; resolve: () => void }[] = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    const n = outLines(stdout).length;
    for (const w of waiters.splice(0)) n >= w.n ? w.resolve() : waiters.push(w);
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('close', (code, signal) => r({ code, signal })));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    /** Resolves once stdout holds at least n complete lines. */
    linesOut: (n: number) => new Promise<void>((resolve) => (outLines(stdout).length >= n ? resolve() : waiters.push({ n, resolve }))),
  };
}

describe('CLI: JSON nested 5,000 deep (bound: no crash, lines in == lines out, limit_exceeded naming the field)', () => {
  it('through a threads grader: the deep line is limit_exceeded, the good lines around it are graded', async () => {
    const input = [rec('ok1', 'a', 'a'), `{"id":"deep","item":{"answer":"a","x":${deepArray()}},"output_text":"a"}`, rec('ok2', 'a', 'b')];
    const r = await runCli(['score', '-g', threads, file('deep-threads.jsonl', input.join('\n') + '\n')]);
    expect(r.code).toBe(0);
    const out = parse(r.stdout);
    expect(out).toHaveLength(input.length);
    expect(out.map((o) => [o.id, o.score])).toEqual([
      ['ok1', 1],
      ['deep', null],
      ['ok2', 0],
    ]);
    expect(out[1].error).toEqual({ kind: 'limit_exceeded', message: expect.stringMatching(/^line 2: item\.x\[0\]\[0\].*nested deeper than 64 levels/) });
  }, 60_000);

  it('in item.answer and sample.output_tools: limit_exceeded, not internal_error', async () => {
    const input = [
      `{"id":"ans","item":{"answer":${deepArray()}},"output_text":"a"}`,
      `{"id":"tools","item":{"answer":"a"},"sample":{"output_text":"a","output_tools":${deepArray()}}}`,
    ];
    const f = file('deep-fields.jsonl', input.join('\n') + '\n');
    for (const g of [exact, tools]) {
      const r = await runCli(['score', '-g', g, f]);
      // every line is invalid, so the run is a failure (exit 6), yet every line has its output
      expect(r.code).toBe(6);
      const out = parse(r.stdout);
      expect(out).toHaveLength(2);
      expect(out.map((o) => o.error.kind)).toEqual(['limit_exceeded', 'limit_exceeded']);
      expect(out[0].error.message).toMatch(/^line 1: item\.answer\[0\]/);
      expect(out[1].error.message).toMatch(/^line 2: sample\.output_tools\[0\]/);
    }
  }, 60_000);

  it('--max-json-depth takes effect exactly: depth N is accepted, N + 1 is refused', async () => {
    // the record is level 1, item level 2, item.answer's array level 3
    const input = ['{"id":"d3","item":{"answer":["a"]},"output_text":"a"}', '{"id":"d4","item":{"answer":[["a"]]},"output_text":"a"}'];
    const r = await runCli(['score', '-g', exact, '--max-json-depth', '3', file('depth-flag.jsonl', input.join('\n'))]);
    expect(r.code).toBe(0);
    const out = parse(r.stdout);
    expect(out.map((o) => o.error?.kind ?? 'graded')).toEqual(['graded', 'limit_exceeded']);
    expect(out[1].error.message).toMatch(/^line 2: item\.answer\[0\]: JSON nested deeper than 3 levels/);
  }, 30_000);
});

describe('CLI: ids are byte-exact (bound: every id written as it was read)', () => {
  it('writes 1e999, big integers, 1.0, -0 and escaped strings back verbatim', async () => {
    const ids = ['1e999', '12345678901234567890', '12345678901234567891', '1.0', '-0', '"\\u0041"', '"3"', '"a\\/b"', '1E2', '7'];
    // spaced, and compact as most writers lay it out (`{"id":1.0,...}` starts like the plain `{"id":1`)
    const input = ids.flatMap((id) => [`{"id": ${id}, "item": {"answer": "a"}, "output_text": "a"}`, `{"id":${id},"item":{"answer":"a"},"output_text":"a"}`]);
    const r = await runCli(['score', '-g', exact, file('ids.jsonl', input.join('\n') + '\n')]);
    expect(r.code).toBe(0);
    const lines = outLines(r.stdout);
    expect(lines).toHaveLength(2 * ids.length);
    expect(lines.map((l) => /^\{"id":(.*?),"score"/.exec(l)?.[1])).toEqual(ids.flatMap((id) => [id, id]));
    expect(lines.map((l) => JSON.parse(l).valid)).toEqual(lines.map(() => true));
  }, 30_000);
});

describe('CLI: --resume is exact (bound: the resumed output equals a full run, line for line)', () => {
  // explicit "3" and 3 next to implicit ids (line numbers), a repeated id, and an id that was null
  const input = [
    rec('3', 'a', 'a'), // line 1: explicit "3"
    rec(3, 'a', 'b'), // line 2: explicit 3
    rec(undefined, 'a', 'a'), // line 3: implicit 3
    rec('dup', 'a', 'a'), // line 4
    rec('dup', 'a', 'b'), // line 5: the same id again
    '{"id": 1e999, "item": {"answer": "a"}, "output_text": "a"}', // line 6
    rec(undefined, 'a', 'b'), // line 7: implicit 7
  ];
  const strip = (l: string) => l.replace(/"duration_ms":[\d.e-]+/g, '"duration_ms":0');

  it('continues a cut run from every possible point, torn last line included', async () => {
    const f = file('resume.jsonl', input.join('\n') + '\n');
    const full = join(dir, 'resume-full.jsonl');
    expect((await runCli(['score', '-g', exact, f, '-o', full])).code).toBe(0);
    const fullLines = readFileSync(full, 'utf8').split('\n').slice(0, -1);
    expect(fullLines).toHaveLength(input.length);
    for (const k of [0, 2, 3, 5, 6]) {
      const out = join(dir, `resume-${k}.jsonl`);
      // k complete records, then half of the next one (a killed run)
      writeFileSync(
        out,
        fullLines
          .slice(0, k)
          .map((l) => l + '\n')
          .join('') + fullLines[k]!.slice(0, 20),
      );
      const r = await runCli(['score', '-g', exact, f, '-o', out, '--resume']);
      expect(r.code, r.stderr).toBe(0);
      const got = readFileSync(out, 'utf8').split('\n').slice(0, -1);
      expect(got.map(strip), `cut after ${k}`).toEqual(fullLines.map(strip));
      expect(r.stderr).toMatch(new RegExp(`graded ${input.length - k} samples`));
    }
  }, 60_000);

  it('a finished output is left alone: nothing is regraded (1e999 included)', async () => {
    const f = file('resume-done.jsonl', input.join('\n') + '\n');
    const out = join(dir, 'resume-done.out.jsonl');
    expect((await runCli(['score', '-g', exact, f, '-o', out])).code).toBe(0);
    const before = readFileSync(out, 'utf8');
    const r = await runCli(['score', '-g', exact, f, '-o', out, '--resume']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/graded 0 samples.*7 already in the output/);
    expect(readFileSync(out, 'utf8')).toBe(before);
  }, 30_000);

  it('refuses, exit 2 and the output untouched, when the output was not written from this input', async () => {
    const f = file('resume-a.jsonl', input.join('\n') + '\n');
    const out = join(dir, 'resume-mismatch.jsonl');
    expect((await runCli(['score', '-g', exact, f, '-o', out])).code).toBe(0);
    const before = readFileSync(out, 'utf8');
    // the same ids in another order
    const swapped = file('resume-b.jsonl', [input[1], input[0], ...input.slice(2)].join('\n') + '\n');
    let r = await runCli(['score', '-g', exact, swapped, '-o', out, '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--resume: output record 1 has id "3" but input line 1 has id 3/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    // an input shorter than the output
    r = await runCli(['score', '-g', exact, file('resume-c.jsonl', input.slice(0, 2).join('\n')), '-o', out, '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/output file has 7 records but the input has only 2 lines/);
    expect(readFileSync(out, 'utf8')).toBe(before);
  }, 30_000);
});

describe('CLI: input edges (bound: lines in == lines out, each edge answered)', () => {
  it('a UTF-8 byte-order mark before the first record is not part of it', async () => {
    const f = file('bom.jsonl', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(rec('first', 'a', 'a') + '\n' + rec('second', 'a', 'a') + '\n')]));
    const r = await runCli(['score', '-g', exact, f]);
    expect(r.code).toBe(0);
    expect(parse(r.stdout).map((o) => [o.id, o.valid, o.score])).toEqual([
      ['first', true, 1],
      ['second', true, 1],
    ]);
  }, 30_000);

  it('invalid UTF-8 is bad_input naming the byte offset, never U+FFFD (answer \\xff is not output \\xfe)', async () => {
    const bad = Buffer.concat([
      Buffer.from('{"id":"bytes","item":{"answer":"'),
      Buffer.from([0xff]),
      Buffer.from('"},"output_text":"'),
      Buffer.from([0xfe]),
      Buffer.from('"}\n'),
    ]);
    const f = file('utf8.jsonl', Buffer.concat([Buffer.from(rec('before', 'a', 'a') + '\n'), bad, Buffer.from(rec('after', 'a', 'a') + '\n')]));
    const r = await runCli(['score', '-g', exact, f]);
    expect(r.code).toBe(0);
    const out = parse(r.stdout);
    expect(out).toHaveLength(3);
    expect(out.map((o) => o.valid)).toEqual([true, false, true]);
    expect(out[1]).toMatchObject({ id: 2, score: null, error: { kind: 'bad_input' } });
    const lineStart = Buffer.byteLength(rec('before', 'a', 'a') + '\n');
    expect(out[1].error.message).toBe(`line 2: not valid UTF-8: byte 0xFF at byte offset 32 of the line (byte ${lineStart + 32} of the input)`);
  }, 30_000);

  it('empty, whitespace-only, NBSP-only and BOM-only lines each get a bad_input line', async () => {
    const blanks = ['', '   \t', '\u00a0', '\ufeff'];
    const input = [rec('a', 'a', 'a'), ...blanks, rec('b', 'a', 'a')];
    const r = await runCli(['score', '-g', exact, file('blank.jsonl', input.join('\n') + '\n')]);
    expect(r.code).toBe(0);
    const out = parse(r.stdout);
    expect(out).toHaveLength(input.length);
    expect(out.map((o) => o.id)).toEqual(['a', 2, 3, 4, 5, 'b']);
    for (const o of out.slice(1, -1))
      expect(o.error).toEqual({ kind: 'bad_input', message: expect.stringMatching(new RegExp(`^line ${o.id}: (empty|blank) line`)) });
    expect(r.stderr).toMatch(/graded 6 samples .* 2 valid, 4 invalid.*bad_input=4/);
  }, 30_000);

  it('an unwritable --summary-json: a clear message and exit 2, before grading or after it with the results intact', async () => {
    const f = file('sum.jsonl', rec('a', 'a', 'a') + '\n');
    const out = join(dir, 'sum.out.jsonl');
    // a missing directory is found before any grading
    let r = await runCli(['score', '-g', exact, f, '-o', out, '--summary-json', join(dir, 'no/such/dir/s.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^arbiter: cannot write summary .*no\/such\/dir\/s\.json: ENOENT/m);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    // a write that fails at the end (a full disk)
    r = await runCli(['score', '-g', exact, f, '-o', out, '--summary-json', '/dev/full']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^arbiter: cannot write summary \/dev\/full: ENOSPC \(the results were written\)/m);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(parse(readFileSync(out, 'utf8'))).toMatchObject([{ id: 'a', score: 1 }]);
  }, 30_000);
});

describe('CLI: SIGINT / SIGTERM (bound: exit 130 / 143, the output is a complete prefix, the summary is written)', () => {
  let judge: TestServer;
  let hangRelease: (() => void) | undefined;
  let hangStarted: Promise<void>;
  let onHang: () => void;
  beforeAll(async () => {
    judge = await startTestServer();
  });
  afterAll(async () => {
    hangRelease?.();
    await judge.close();
  });
  const userText = (r: RecordedRequest) => r.body.messages.map((m: { content: string }) => m.content).join('\n');

  it('SIGTERM on stdin input: the lines already graded are on stdout, then the summary', async () => {
    const p = spawnCli(['score', '-g', exact, '-']);
    p.child.stdin!.write(rec('s1', 'a', 'a') + '\n' + rec('s2', 'a', 'b') + '\n');
    await p.linesOut(2); // graded and flushed while stdin stays open
    p.child.kill('SIGTERM');
    const { code } = await p.exited;
    expect(code).toBe(143);
    expect(parse(p.stdout()).map((o) => [o.id, o.score])).toEqual([
      ['s1', 1],
      ['s2', 0],
    ]);
    expect(p.stderr()).toMatch(/graded 2 samples .*interrupted by SIGTERM/);
  }, 30_000);

  it('SIGINT with a grade in flight: it is not written, the summary says so, and --resume finishes exactly', async () => {
    hangStarted = new Promise<void>((r) => (onHang = r));
    judge.onChat(async (req) => {
      if (userText(req).includes('HANG')) {
        onHang();
        await new Promise<void>((r) => (hangRelease = r));
      }
      return { content: 'Score: 7' };
    });
    const g = file(
      'judge.json',
      JSON.stringify({
        type: 'score_model',
        model: 'm',
        base_url: judge.url,
        cache: false,
        max_retries: 0,
        range: [1, 10],
        input: [{ role: 'user', content: 'Rate: {{sample.output_text}}' }],
      }),
    );
    const f = file('judge.jsonl', [rec(1, '', 'fine'), rec(2, '', 'HANG'), rec(3, '', 'fine too')].join('\n') + '\n');
    const out = join(dir, 'judge.out.jsonl');
    const sum = join(dir, 'judge.sum.json');
    const p = spawnCli(['score', '-g', g, f, '-o', out, '--concurrency', '1', '--summary-json', sum]);
    await hangStarted; // line 1 is graded; line 2 is waiting on the judge
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code, p.stderr()).toBe(130);
    expect(parse(readFileSync(out, 'utf8')).map((o) => [o.id, o.valid])).toEqual([[1, true]]);
    expect(JSON.parse(readFileSync(sum, 'utf8'))).toMatchObject({ count: 1, valid: 1, interrupted: 'SIGINT' });
    expect(p.stderr()).toMatch(/interrupted by SIGINT.*--resume/);
    // the judge answers now; resume grades lines 2 and 3 only
    judge.onChat(() => ({ content: 'Score: 7' }));
    hangRelease?.();
    const r = await runCli(['score', '-g', g, f, '-o', out, '--resume', '--concurrency', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(parse(readFileSync(out, 'utf8')).map((o) => [o.id, o.valid])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    expect(r.stderr).toMatch(/graded 2 samples.*1 already in the output/);
  }, 60_000);
});

describe('server: hostile bodies (bound: the process survives, a 4xx naming the field, ids echoed byte-exact)', () => {
  let s: ServeProcess;
  beforeAll(async () => {
    s = await serve(['--grader', threads]);
  }, 60_000);
  afterAll(async () => {
    await s?.stop('SIGTERM');
  });
  const postRaw = async (path: string, body: string | Buffer) => {
    const res = await fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: res.status, text: await res.text() };
  };
  const alive = async () => (await fetch(`${s.url}/healthz`)).status;

  it('a deep item in /v1/score and deep metas in /get_reward are 400 limit_exceeded; the server keeps serving', async () => {
    let r = await postRaw('/v1/score', `{"samples":[{"id":1,"item":{"answer":${deepArray()}},"output_text":"a"}]}`);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toMatchObject({
      code: 'limit_exceeded',
      message: expect.stringMatching(/samples\[0\]\.item\.answer\[0\].*nested deeper than 64 levels/),
    });
    expect(await alive()).toBe(200);
    r = await postRaw('/get_reward', `{"query":["a"],"metas":[${deepArray('{}')}]}`);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error.message).toMatch(/metas\[0\]\[0\]/);
    expect(await alive()).toBe(200);
    r = await postRaw('/v1/score', `{"samples":[${rec('ok', 'a', 'a')}]}`);
    expect(JSON.parse(r.text).results[0]).toMatchObject({ id: 'ok', score: 1 });
  }, 60_000);

  it('/v1/score echoes ids as they were sent', async () => {
    const ids = ['1e999', '12345678901234567890', '12345678901234567891', '1.0', '"\\u0041"'];
    const r = await postRaw(
      '/v1/score',
      `{"samples":[${ids.map((id) => `{"id":${id},"item":{"answer":"a"},"output_text":"a"}`).join(',')},${rec(undefined, 'a', 'a')}]}`,
    );
    expect(r.status).toBe(200);
    expect([...r.text.matchAll(/\{"id":(.*?),"score"/g)].map((m) => m[1])).toEqual([...ids, '5']);
    expect(JSON.parse(r.text).summary).toMatchObject({ count: 6, valid: 6 });
  }, 30_000);

  it('a leading BOM is accepted; invalid UTF-8 is a 400 naming the offset, not a silent U+FFFD', async () => {
    let r = await postRaw('/v1/score', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`{"samples":[${rec('bom', 'a', 'a')}]}`)]));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).results[0]).toMatchObject({ id: 'bom', score: 1 });
    const head = '{"samples":[{"item":{"answer":"';
    r = await postRaw(
      '/v1/score',
      Buffer.concat([Buffer.from(head), Buffer.from([0xff]), Buffer.from('"},"output_text":"'), Buffer.from([0xfe]), Buffer.from('"}]}')]),
    );
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toMatchObject({
      code: 'malformed_json',
      message: `the request body is not valid UTF-8: byte 0xFF at byte offset ${head.length}`,
    });
  }, 30_000);
});
