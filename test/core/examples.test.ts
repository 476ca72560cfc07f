// Every grader file under examples/ must stay valid, and the README's main job must keep working.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, ROOT } from '../helpers/cli.js';

const exampleDir = join(ROOT, 'examples');
const graderFiles = readdirSync(exampleDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .map((f) => join(exampleDir, f));

describe('examples', () => {
  it('has grader files, and arbiter validate accepts every one', async () => {
    expect(graderFiles.length).toBeGreaterThanOrEqual(6);
    const r = await runCli(['validate', ...graderFiles]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('the README main job grades the GSM8K example in agreement with its labels', async () => {
    const r = await runCli(['score', '--grader', 'examples/gsm8k/grader.json', 'examples/gsm8k/samples.jsonl']);
    expect(r.code).toBe(0);
    const inputs = readFileSync(join(exampleDir, 'gsm8k/samples.jsonl'), 'utf8')
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
    expect(r.stderr).toMatch(/graded 200 samples/);
  });
});
