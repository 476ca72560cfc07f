// The docs' commands as written: every grader file README.md, docs/*.md and integrations/README.md
// name under graders/ exists and validates; every curl example that sends a body sends
// Content-Type; every `arbiter serve` line that needs only graders/ files starts as written (its
// --port swapped for a free one) with the graders it names; the groups curl example runs against
// such a server and gets the rewards its samples deserve; without the header the reply is the 415
// that names it. (docs/recipes.md's commands run in test/recipes/.)
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, runProcess } from '../helpers/cli.js';
import { docBlock } from '../helpers/docs.js';
import { dataPath } from '../helpers/data.js';
import { serve } from '../server/serve-process.js';

const DOC_FILES = ['README.md', 'integrations/README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));
const docs = DOC_FILES.map((f) => ({ file: f, text: readFileSync(join(ROOT, f), 'utf8') }));

/** The shell blocks of a page (```bash / ```sh), each with its continuation lines joined. */
function shellBlocks(text: string): string[] {
  return [...text.matchAll(/```(?:bash|sh|shell)\n([\s\S]*?)```/g)].map((m) => m[1]!);
}
const joined = (block: string) => block.replace(/\\\n\s*/g, ' ');

/** The commands of every page that start with `prog`, one per logical line. */
function commands(prog: string): { file: string; line: string }[] {
  const out: { file: string; line: string }[] = [];
  for (const d of docs)
    for (const b of shellBlocks(d.text))
      for (const l of joined(b).split('\n')) if (l.trim().startsWith(`${prog} `)) out.push({ file: d.file, line: l.trim().replace(/\s+#.*$/, '') });
  return out;
}

/** Runs a bash script in the project root; resolves with its exit code and output. */
const bash = (script: string) => runProcess('bash', ['-c', script]);

describe('the docs name shipped graders', () => {
  const named = new Set(docs.flatMap((d) => [...d.text.matchAll(/(?<![\w/])graders\/[\w.-]+\.json/g)].map((m) => m[0])));

  it('every graders/*.json a page names exists and arbiter validate accepts it', async () => {
    expect([...named].sort()).toEqual(expect.arrayContaining(['graders/gsm8k.json', 'graders/math.json', 'graders/code.json', 'graders/judge.json']));
    const r = await runCli(['validate', ...named]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it("graders/gsm8k.json takes GSM8K's own answer field (a solution ending in '#### N') as item.label, as OpenRLHF and TRL send it", async () => {
    const rows = readFileSync(dataPath('gsm8k/test.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .slice(0, 40)
      .map((l) => JSON.parse(l) as { answer: string });
    const gold = rows.map((r) => /#### (.+)$/.exec(r.answer)![1]!.replace(/,/g, ''));
    const input = rows.flatMap((r, i) => [
      JSON.stringify({ id: `${i}-right`, item: { label: r.answer }, sample: { output_text: `So the answer is ${gold[i]}.` } }),
      JSON.stringify({ id: `${i}-wrong`, item: { label: r.answer }, sample: { output_text: `So the answer is ${Number(gold[i]) + 1}.` } }),
    ]);
    const f = join(mkdtempSync(join(tmpdir(), 'arbiter-docs-')), 'gsm8k.jsonl');
    writeFileSync(f, input.join('\n') + '\n');
    const r = await runCli(['score', '--grader', 'graders/gsm8k.json', f]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; score: number; valid: boolean });
    expect(out.map((o) => [o.id, o.valid, o.score])).toEqual(
      rows.flatMap((_, i) => [
        [`${i}-right`, true, 1],
        [`${i}-wrong`, true, 0],
      ]),
    );
  });

  it('every file in graders/ is named by a page', () => {
    for (const f of readdirSync(join(ROOT, 'graders'))) expect(named.has(`graders/${f}`), `graders/${f} is named by no page`).toBe(true);
  });
});

describe('curl examples', () => {
  const curls = docs.flatMap((d) =>
    shellBlocks(d.text).flatMap((b) =>
      joined(b)
        .split(/\n(?=curl )/)
        .filter((c) => c.startsWith('curl '))
        .map((c) => ({ file: d.file, c })),
    ),
  );

  it('every curl that sends a body sends Content-Type', () => {
    const withBody = curls.filter(({ c }) => /\s(-d|--data\S*)\s/.test(c));
    expect(withBody.length).toBeGreaterThanOrEqual(3);
    for (const { file, c } of withBody) expect(c, `${file}: ${c.slice(0, 80)}`).toMatch(/-H '[Cc]ontent-[Tt]ype: application\/json'/);
  });
});

describe('arbiter serve lines', () => {
  // the lines that need nothing but graders/ files (the others need Redis, a token, a model server...)
  const runnable = commands('arbiter serve').filter(({ line }) => /^arbiter serve( --grader (\S+=)?graders\/\S+\.json| --port \d+)+$/.test(line));

  it('start as written with the graders they name', async () => {
    expect(runnable.length).toBeGreaterThanOrEqual(4);
    for (const { file, line } of runnable) {
      const args = line.split(' ').slice(2);
      const port = args.indexOf('--port');
      if (port >= 0) args.splice(port, 2);
      const want = args
        .filter((_, i) => args[i - 1] === '--grader')
        .map((g) => (g.includes('=') ? g.split('=')[0]! : (JSON.parse(readFileSync(join(ROOT, g), 'utf8')) as { name: string }).name));
      const srv = await serve(args);
      try {
        const health = (await (await fetch(`${srv.url}/healthz`)).json()) as { graders: string[] };
        expect(health.graders.sort(), `${file}: ${line}`).toEqual([...want].sort());
      } finally {
        await srv.stop();
      }
    }
  }, 120_000);

  it("docs/groups.md's curl example grades against them as written (the host swapped), and the same without Content-Type is a 415 naming it", async () => {
    const block = docBlock('docs/groups.md', 'localhost:8000/v1/groups');
    const srv = await serve(['--grader', 'gsm8k=graders/gsm8k.json']);
    try {
      const host = srv.url.replace(/^http:\/\//, '');
      const r = await bash(block.replaceAll('localhost:8000', host));
      expect(r.code, r.stderr).toBe(0);
      const reply = JSON.parse(r.stdout) as { results: { id: string; score: number; valid: boolean; advantage: number }[] };
      // "... A: 4" against label 4 is right, "... A: 5" is wrong
      expect(reply.results.map((x) => [x.id, x.score, x.valid])).toEqual([
        ['a', 1, true],
        ['b', 0, true],
      ]);
      expect(reply.results[0]!.advantage).toBeGreaterThan(0);
      const bare = await bash(block.replaceAll('localhost:8000', host).replace(/ -H '[^']*'/, ''));
      expect(bare.stdout).toContain('content-type: application/json');
      expect(JSON.parse(bare.stdout)).toMatchObject({ error: { code: 'unsupported_media_type' } });
    } finally {
      await srv.stop();
    }
  }, 60_000);
});
