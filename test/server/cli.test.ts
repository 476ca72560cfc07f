// `arbiter serve` as users run it: named graders from files, token from the environment, refusal
// to expose itself without a token, and a clean exit on SIGTERM.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CHECK, get, post } from './helpers.js';
import { serve } from './serve-process.js';

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arbiter-serve-'));
  file = join(dir, 'answer.json');
  writeFileSync(file, JSON.stringify(ANSWER_CHECK));
});

describe('arbiter serve', () => {
  it('serves several named graders and exits 0 on SIGTERM', async () => {
    const s = await serve(['--grader', file, '--grader', `openai/gsm8k=${file}`, '--fallback-reward', '-1']);
    try {
      expect(s.stderr()).toMatch(/graders answer_check \(default\), openai\/gsm8k/);
      const h = await get(`${s.url}/healthz`);
      expect(h.body.graders).toEqual(['answer_check', 'openai/gsm8k']);
      const r = await post(`${s.url}/get_reward`, { grader: 'openai/gsm8k', query: ['A: 5<|im_end|>', 'A: 6'], labels: ['5', null] });
      expect(r.body.rewards[0]).toBe(1);
      const m = await post(`${s.url}/get_reward`, { query: ['A: 5'] });
      expect(m.body).toEqual({ rewards: [-1], scores: [-1], extra_logs: { arbiter_invalid: [1] } });
    } finally {
      const code = await s.stop('SIGTERM');
      expect(code).toBe(0);
      expect(s.stderr()).toMatch(/SIGTERM received.*\n.*stopped/);
    }
  });

  it('takes the token from ARBITER_TOKEN', async () => {
    const s = await serve(['--grader', file], { ARBITER_TOKEN: 'tok' });
    try {
      expect(s.stderr()).toMatch(/token required/);
      expect((await post(`${s.url}/v1/score`, { samples: [] })).status).toBe(401);
      expect((await post(`${s.url}/v1/score`, { samples: [] }, { authorization: 'Bearer tok' })).status).toBe(200);
    } finally {
      expect(await s.stop('SIGINT')).toBe(0);
    }
  });

  it('refuses a non-loopback host without a token, duplicate names and bad grader files (exit 2)', async () => {
    await expect(serve(['--grader', file, '--host', '0.0.0.0'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/non-loopback address 0\.0\.0\.0 without a token/),
    });
    await expect(serve(['--grader', file, '--grader', file])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/two graders are named "answer_check"/),
    });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ type: 'string_check', input: 'x' }));
    await expect(serve(['--grader', bad])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/reference/) });
    await expect(serve(['--grader', file, '--default-grader', 'nope'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/default grader "nope" is not loaded/),
    });
  });
});
