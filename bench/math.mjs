// Benchmark of the math verifier on one core: verifications per second and per-item latency
// (p50 / p99 / max) for GSM8K-style pairs (5,276 labelled solutions vs their gold solution) and
// MATH-style pairs (the MATH-500 pair table and full solutions vs final answers), plus hostile
// inputs. Baseline, run in the same process: a naive "last number, string equality" check.
// With --before DIR (a copy of an older dist/), that build is timed in the same run beside this
// one. With --math-verify (python3 with sympy, and math_verify importable, e.g. via
// MATH_VERIFY_PYTHONPATH), Math-Verify itself is timed on the LaTeX-heavy items and the
// per-item ratio is printed (best full pass on each side: 2 for Math-Verify, 10 here).
// Usage: node bench/math.mjs [--seconds 3] [--rounds 1] [--before DIR] [--pairs FILE] [--math-verify] [--mv-items 300]
//        (run `npm run build` first)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { verifyMath, resolveMathOptions } from '../dist/graders/math/index.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg('seconds', 3);
const ROUNDS = arg('rounds', 1);
const MV_ITEMS = arg('mv-items', 300);
const strArg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const BEFORE = strArg('before');
const before = BEFORE ? await import(pathToFileURL(resolve(BEFORE, 'graders/math/index.js')).href) : undefined;

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const jsonl = (p) =>
  readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

const gsmRows = jsonl(here('../../shared/data/gsm8k/example_model_solutions.jsonl'));
const gsm = [];
for (const r of gsmRows)
  for (const f of ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification']) gsm.push([r[f].solution, r.ground_truth]);

const mathRows = jsonl(here('../../shared/data/math500/test.jsonl'));
const pairs = JSON.parse(readFileSync(strArg('pairs') ?? here('../test/math/fixtures/math500-pairs.json'), 'utf8'));
const mathPairs = [...pairs.map((p) => [p.output, p.reference]), ...mathRows.map((r) => [r.answer, r.answer.split('The answer is: ').pop()])];

const hostile = [
  ['\\boxed{' + '{'.repeat(100_000) + '1' + '}'.repeat(100_000) + '}', '1'],
  ['\\boxed{10^{10^{10^{10}}}}', '5'],
  ['7'.repeat(1_000_000), '1'],
  ['\\boxed{1}x'.repeat(100_000), '1'],
  ['\\boxed{' + Array(600).fill('x').join('+') + '}', '600x'],
  ['\\boxed{' + '('.repeat(1000) + '1' + ')'.repeat(1000) + '}', '1'],
  ['the answer is 5. '.repeat(50_000), '5'],
];

function naive(out, ref) {
  const a = out.match(/-?\d[\d,]*(?:\.\d+)?/g);
  const b = ref.match(/-?\d[\d,]*(?:\.\d+)?/g);
  return a && b && a[a.length - 1].replace(/,/g, '') === b[b.length - 1].replace(/,/g, '') ? 1 : 0;
}

const opts = resolveMathOptions({});

function run(label, items, fn) {
  // warm up, then time each call individually for SECONDS
  for (let i = 0; i < Math.min(items.length, 2000); i++) fn(items[i][0], items[i][1]);
  const lat = [];
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < SECONDS * 1000) {
    const [o, r] = items[n % items.length];
    const s = performance.now();
    fn(o, r);
    lat.push(performance.now() - s);
    n++;
  }
  const wall = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  const rate = n / wall;
  console.log(
    `${label.padEnd(34)} ${String(Math.round(rate)).padStart(8)}/s   p50 ${q(0.5).toFixed(3)} ms   p99 ${q(0.99).toFixed(3)} ms   max ${lat[lat.length - 1].toFixed(2)} ms   (${n} calls)`,
  );
  return rate;
}

console.log(`math verifier benchmark, one core, ${SECONDS}s per row, ${ROUNDS} round(s); node ${process.version}`);
for (let round = 0; round < ROUNDS; round++) {
  const base = run('baseline (last number ===) GSM8K', gsm, naive);
  const g = run('verifyMath GSM8K-style', gsm, (o, r) => verifyMath(o, r, opts));
  const m = run('verifyMath MATH-style', mathPairs, (o, r) => verifyMath(o, r, opts));
  console.log(`ratio verifyMath/baseline on GSM8K: ${(g / base).toFixed(3)}   targets: GSM8K >= 20000/s, MATH >= 2000/s, p99 < 5 ms`);
  if (before) {
    const bopts = before.resolveMathOptions({});
    const bg = run('before: verifyMath GSM8K-style', gsm, (o, r) => before.verifyMath(o, r, bopts));
    const bm = run('before: verifyMath MATH-style', mathPairs, (o, r) => before.verifyMath(o, r, bopts));
    console.log(`now/before: GSM8K ${(g / bg).toFixed(3)}, MATH ${(m / bm).toFixed(3)}; before/baseline on GSM8K ${(bg / base).toFixed(3)}`);
  }
  let worst = 0;
  for (const [o, r] of hostile) {
    const s = performance.now();
    const v = verifyMath(o, r, opts);
    const d = performance.now() - s;
    worst = Math.max(worst, d);
    console.log(`  hostile ${JSON.stringify(o.slice(0, 24))}… (${o.length} chars): ${d.toFixed(1)} ms -> ${v.valid ? `score ${v.score}` : v.error?.kind}`);
  }
  console.log(
    `worst hostile case: ${worst.toFixed(1)} ms (time budget ${opts.time_budget_ms} ms applies to parsing/evaluation; extraction is linear in the input)`,
  );
}

if (process.argv.includes('--math-verify')) {
  // LaTeX-heavy items: the MATH-500 pair table (every answer category), the same items for both
  const items = pairs
    .filter((p) => /\\/.test(p.output + p.reference))
    .slice(0, MV_ITEMS)
    .map((p) => [p.output, p.reference]);
  const py = String.raw`
import json, re, sys, time
from math_verify import parse, verify
items = json.load(sys.stdin)
wrap = lambda g: g if re.search(r'\$|\\\(|\\\[|\\boxed', g) else '$' + g + '$'
def one(p, g):
    try:
        return verify(parse(wrap(g)), parse(p))
    except Exception:
        return False
for p, g in items[:20]: one(p, g)
best = None
for _ in range(2):
    t = time.perf_counter()
    ok = sum(1 for p, g in items if one(p, g))
    ms = (time.perf_counter() - t) * 1000 / len(items)
    best = ms if best is None else min(best, ms)
print(json.dumps({"ms": best, "equal": ok, "n": len(items)}))
`;
  const env = { ...process.env, ...(process.env.MATH_VERIFY_PYTHONPATH ? { PYTHONPATH: process.env.MATH_VERIFY_PYTHONPATH } : {}) };
  const r = spawnSync('python3', ['-c', py], { input: JSON.stringify(items), env, encoding: 'utf8', maxBuffer: 1 << 24 });
  const line = r.status === 0 ? r.stdout.trim().split('\n').pop() : '';
  if (!line) console.log(`Math-Verify not run (python3 -c "import math_verify" failed: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()})`);
  const mvRun = line ? JSON.parse(line) : undefined;
  // the same statistic on both sides: the best of several full passes over the items (timed here even
  // without Math-Verify, so this build and --before can be compared per item on the same workload)
  const perItem = (verify, o) => {
    for (let k = 0; k < 5; k++) for (const [a, rf] of items) verify(a, rf, o);
    let best = Infinity;
    for (let k = 0; k < 10; k++) {
      const t0 = performance.now();
      for (const [a, rf] of items) verify(a, rf, o);
      best = Math.min(best, (performance.now() - t0) / items.length);
    }
    return best;
  };
  const ours = perItem(verifyMath, opts);
  const ratio = (x) => (mvRun ? `, ${(mvRun.ms / x).toFixed(0)}x` : '');
  const b = before ? perItem(before.verifyMath, before.resolveMathOptions({})) : undefined;
  const old = b === undefined ? '' : `; before: ${b.toFixed(4)} ms/item${ratio(b)}`;
  const oursEqual = items.filter(([o, rf]) => verifyMath(o, rf, opts).score === 1).length;
  console.log(
    mvRun
      ? `LaTeX-heavy items (${items.length} from the pair table; judged equal: Math-Verify ${mvRun.equal}, verifyMath ${oursEqual}): Math-Verify ${mvRun.ms.toFixed(3)} ms/item, verifyMath ${ours.toFixed(4)} ms/item: ${(mvRun.ms / ours).toFixed(0)}x faster (target >= 300x)${old}`
      : `LaTeX-heavy items (${items.length} from the pair table; judged equal: verifyMath ${oursEqual}): verifyMath ${ours.toFixed(4)} ms/item${old}`,
  );
}
