// docs/design.md's `arbiter design` commands, run as written (runDoc) against a scripted
// OpenAI-compatible model named by OPENAI_BASE_URL: the run writes its folder, the exported grader
// validates, and `arbiter score` with it gives the rewards the run measured.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docBlock, docWorkdir, runDoc } from '../helpers/docs.js';
import { startTestServer, type TestServer } from '../helpers/openai-test-server.js';

const fence = (code: string) => `\`\`\`python\n${code}\n\`\`\``;
const REPLIES: Record<number, string> = {
  0: fence('def reward(trajectory):\n    return 1 / 0'),
  1: fence('def reward(trajectory):\n    return -len(trajectory["steps"])'),
  1000: fence(
    'def reward(trajectory):\n    steps = trajectory["steps"]\n    end = steps[-1]["cell"]\n    bonus = 1.0 if end == "G" else -1.0 if end == "~" else 0.0\n    return [-0.02] * len(steps) + [bonus]',
  ),
  1001: 'no code here',
};

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ chat: (r) => ({ content: REPLIES[Number(r.body?.seed)] ?? '' }) });
});
afterAll(async () => {
  await srv?.close();
});

const jsonl = <T>(f: string): T[] =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

describe('docs/design.md', () => {
  it('the grid-world example runs as written', async () => {
    const dir = docWorkdir();
    const block = docBlock('docs/design.md', 'arbiter design --task examples/design/task.md');
    const r = await runDoc(block, { dir, env: { OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'test-key' }, timeoutMs: 240_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('best: iteration 2, candidate 1, fitness (rank) 1.0000');
    expect(srv.chatRequests).toHaveLength(4);
    expect(srv.chatRequests[0]!.headers.authorization).toBe('Bearer test-key');
    const recs = jsonl<{ status: string; error?: string }>(join(dir, 'runs/design/candidates.jsonl'));
    expect(recs.map((x) => x.status)).toEqual(['failed', 'ok', 'ok', 'failed']);
    expect(recs[0]!.error).toMatch(/ZeroDivisionError/);
    const measured = jsonl<{ id: string; total: number }>(join(dir, 'runs/design/iter-2/cand-0.rewards.jsonl'));
    const scored = jsonl<{ id: string; score: number }>(join(dir, 'runs/rewards.jsonl'));
    expect(scored.map((x) => [x.id, x.score])).toEqual(measured.map((x) => [x.id, x.total]));
  }, 300_000);
});
