// Judge throughput: score_model grades per second through the real client (openai SDK, limiter,
// parser, result shape) against the scriptable test server answering instantly, at concurrency 64,
// with the cache off and on. Baseline in the same run: bare fetch() POSTs to the same server at the
// same concurrency (the most any client could do here), so the ratio shows the engine's overhead.
// Usage: node bench/judges.mjs [--n 4000] [--concurrency 64]   (needs `npx tsc -p .` first)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('n', 4000);
const C = arg('concurrency', 64);

// the test server is TypeScript: compile it once into bench/out (git-ignored)
execFileSync(
  process.execPath,
  [
    join(root, 'node_modules/typescript/bin/tsc'),
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
    '--types',
    'node',
    '--skipLibCheck',
    '--outDir',
    join(root, 'bench/out/helpers'),
    join(root, 'test/helpers/openai-test-server.ts'),
  ],
  { stdio: 'inherit' },
);

// run the server in its own process so it does not share the engine's event loop
const serverSrc = `
import { startTestServer } from ${JSON.stringify(join(root, 'bench/out/helpers/openai-test-server.js'))};
const s = await startTestServer({ record: false, chat: () => ({ content: '{"steps": [{"description": "checked", "conclusion": "fine"}], "result": 7}' }) });
console.log(s.url);
`;
const child = spawn(process.execPath, ['--input-type=module', '-e', serverSrc], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));

const { loadGrader, gradeStream, Services } = await import('../dist/index.js');
const rows = JSON.parse(readFileSync(join(root, '../shared/data/rm-bench/chat_filtered.json'), 'utf8'));
const inputs = Array.from({ length: N }, (_, i) => {
  const r = rows[i % rows.length];
  return { item: { prompt: r.prompt, k: i }, sample: { output_text: r.chosen[i % 3] } };
});

async function baseline() {
  const body = JSON.stringify({ model: 'judge', messages: [{ role: 'user', content: inputs[0].item.prompt }], temperature: 0 });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < N) {
        next++;
        const res = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.json();
      }
    }),
  );
  return N / ((performance.now() - t0) / 1000);
}

async function engine(cache, services) {
  const g = loadGrader({
    type: 'score_model',
    model: 'judge',
    base_url: url,
    range: [1, 10],
    cache,
    max_concurrency: C,
    input: [{ role: 'user', content: 'Question: {{item.prompt}} ({{item.k}})\n\nResponse: {{sample.output_text}}' }],
  });
  let valid = 0;
  const t0 = performance.now();
  for await (const r of gradeStream(g, inputs, { concurrency: C, services })) if (r.valid && r.score === 7) valid++;
  const rate = N / ((performance.now() - t0) / 1000);
  if (valid !== N) throw new Error(`only ${valid} of ${N} grades were valid`);
  return rate;
}

const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-'));
try {
  await baseline(); // warm-up
  const base = await baseline();
  const s1 = new Services({ cacheDir: dir });
  const off = await engine(false, s1);
  await s1.close();
  const s2 = new Services({ cacheDir: dir });
  const fill = await engine(true, s2);
  await s2.close();
  const s3 = new Services({ cacheDir: dir });
  const hit = await engine(true, s3);
  await s3.close();
  const f = (x) => x.toFixed(0).padStart(7);
  console.log(`judges bench: ${N} grades, concurrency ${C}, instant test server in a child process`);
  console.log(`  baseline  bare fetch POST           ${f(base)} req/s`);
  console.log(`  engine    cache off                 ${f(off)} grades/s   ratio vs baseline ${(off / base).toFixed(2)}`);
  console.log(`  engine    cache on, first run (miss) ${f(fill)} grades/s   ratio vs baseline ${(fill / base).toFixed(2)}`);
  console.log(`  engine    cache on, rerun (all hits) ${f(hit)} grades/s   ratio vs baseline ${(hit / base).toFixed(2)}`);
} finally {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}
