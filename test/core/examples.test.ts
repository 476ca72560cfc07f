// Every grader file under examples/ must stay valid, the README's main job must keep working, and
// the example data is the project's own: exactly what scripts/make-examples.mjs generates.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, ROOT } from '../helpers/cli.js';

const exampleDir = join(ROOT, 'examples');
const jsonFiles = readdirSync(exampleDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .map((f) => join(exampleDir, f));
// the recipes ship advantage and monitor configs beside their graders, named by what they are
const kindOf = (f: string): 'advantages' | 'monitor' | 'grader' =>
  f.endsWith('/advantages.json') ? 'advantages' : f.endsWith('/monitor.json') ? 'monitor' : 'grader';
const graderFiles = jsonFiles.filter((f) => kindOf(f) === 'grader');

describe('examples', () => {
  it('has grader files, and arbiter validate accepts every one', async () => {
    expect(graderFiles.length).toBeGreaterThanOrEqual(6);
    const r = await runCli(['validate', ...graderFiles]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('the advantage and monitor configs beside them validate as what they are, and not as graders', async () => {
    for (const kind of ['advantages', 'monitor'] as const) {
      const files = jsonFiles.filter((f) => kindOf(f) === kind);
      expect(files.length, kind).toBeGreaterThanOrEqual(2);
      const r = await runCli(['validate', '--as', kind, ...files]);
      expect(r.stderr, kind).toBe('');
      expect(r.code, kind).toBe(0);
      const asGrader = await runCli(['validate', files[0]!]);
      expect(asGrader.code).toBe(3);
      if (kind === 'advantages') expect(asGrader.stderr).toContain('--as advantages');
    }
    // and a grader read as an advantage config is refused, naming the missing estimator
    const wrong = await runCli(['validate', '--as', 'advantages', graderFiles[0]!]);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('estimator');
  });

  it('the committed example data is exactly what scripts/make-examples.mjs writes', () => {
    const out = mkdtempSync(join(tmpdir(), 'arbiter-examples-'));
    try {
      const r = spawnSync(process.execPath, [join(ROOT, 'scripts/make-examples.mjs'), '--out', out], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      for (const f of ['arithmetic/samples.jsonl', 'length-gated/samples.jsonl']) {
        expect(readFileSync(join(out, f), 'utf8'), `${f}: run node scripts/make-examples.mjs`).toBe(readFileSync(join(exampleDir, f), 'utf8'));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('the README main job grades the arithmetic example in agreement with its labels', async () => {
    const r = await runCli(['score', '--grader', 'examples/arithmetic/grader.json', 'examples/arithmetic/samples.jsonl']);
    expect(r.code).toBe(0);
    const inputs = readFileSync(join(exampleDir, 'arithmetic/samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const outputs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(outputs).toHaveLength(inputs.length);
    outputs.forEach((o, i) => {
      expect(o.id).toBe(inputs[i].id);
      expect(o.valid).toBe(true);
      // the correctness component agrees with the human label on every example
      expect(o.components.correct.score === 1, o.id).toBe(inputs[i].item.is_correct);
      // and the reward is 0 exactly when the answer is wrong
      expect(o.score > 0).toBe(inputs[i].item.is_correct);
    });
    // a realistic mix: some right, some wrong, some with a reasoning block whose draft number is not read
    const right = inputs.filter((x) => x.item.is_correct).length;
    expect(right).toBeGreaterThan(inputs.length / 2);
    expect(right).toBeLessThan(inputs.length);
    expect(inputs.filter((x) => x.sample.output_text.startsWith('<think>')).length).toBeGreaterThan(20);
    expect(r.stderr).toMatch(/graded 200 samples .* 200 valid, 0 invalid, mean score 0\.6/);
  });
});
