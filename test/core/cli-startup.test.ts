// `--verbose` on the grading commands (score, eval, search, worker) prints the graders' start-up,
// done at load before the first record (core/startup.ts): here an ifeval grader whose items may ask
// for a language check, so the language profiles load at start-up; without the flag nothing is printed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';

const dir = mkdtempSync(join(tmpdir(), 'arbiter-startup-'));
const grader = join(dir, 'ifeval.json');
writeFileSync(grader, JSON.stringify({ type: 'ifeval', input: '{{sample.output_text}}', instruction_ids: '{{item.ids}}', kwargs: '{{item.kwargs}}' }));
const samples = join(dir, 's.jsonl');
writeFileSync(
  samples,
  `${JSON.stringify({ id: 1, item: { ids: ['language:response_language'], kwargs: [{ language: 'en' }] }, output_text: 'hello there' })}\n`,
);
const STARTUP = /start-up of the graders: \d+ ms \(ifeval language profiles \(langdetect\) \d+ ms\); not counted in any timeout_ms/;

describe('--verbose prints the start-up done at load', () => {
  it('score', async () => {
    const loud = await runCli(['score', '--grader', grader, samples, '--verbose']);
    expect(loud.code, loud.stderr).toBe(0);
    expect(loud.stderr).toMatch(new RegExp(`^arbiter: ${STARTUP.source}`, 'm'));
    const quiet = await runCli(['score', '--grader', grader, samples]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/start-up/);
  });

  it('eval', async () => {
    // two prompts of four candidates each, scored by the same grader (items without ids: no instruction ⇒ bad_input, still a run)
    const data = join(dir, 'bon.jsonl');
    writeFileSync(data, readFileSync(dataPath('gsm8k/example_model_solutions.jsonl'), 'utf8').split('\n').slice(0, 2).join('\n') + '\n');
    const r = await runCli(['eval', 'bon', data, '--grader', grader, '--no-progress', '--verbose'], { timeoutMs: 120_000 });
    expect(r.stderr).toMatch(new RegExp(`^arbiter: ${STARTUP.source}`, 'm'));
  });

  it('search', async () => {
    const cfg = join(dir, 'search.json');
    const generator = { model: 'policy', base_url: 'http://127.0.0.1:1/v1', api_key: 'EMPTY', max_retries: 0 };
    writeFileSync(cfg, JSON.stringify({ generator, verifier: JSON.parse(readFileSync(grader, 'utf8')), methods: ['best_of_n'], n: [1] }));
    const data = join(dir, 'q.jsonl');
    writeFileSync(data, '{"question": "q", "answer": "1"}\n');
    const r = await runCli(['search', data, '--config', cfg, '--no-progress', '--verbose']);
    expect(r.stderr).toMatch(new RegExp(`^arbiter: ${STARTUP.source}`, 'm'));
  });

  it('worker: at load, before it reaches the queue; jobs run under a deadline, so in the worker threads', async () => {
    const r = await runCli(['worker', '--queue', 'redis://127.0.0.1:1', '--grader', grader, '--verbose']);
    expect(r.stderr).toMatch(
      /^arbiter worker: start-up of the graders: \d+ ms \(\d+ worker threads? \d+ ms; ifeval language profiles \(langdetect\) \(in each worker thread\) \d+ ms\)/m,
    );
    expect(r.stderr).toMatch(/cannot reach Redis/);
    expect(r.stderr.indexOf('start-up')).toBeLessThan(r.stderr.indexOf('cannot reach Redis'));
  });
});
