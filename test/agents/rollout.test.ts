// The rollout runner and `arbiter env rollout`: a policy and a user simulator on a scripted
// OpenAI-compatible server drive tau-bench episodes; the trajectories written as JSONL are graded by
// `arbiter score` with a tau_bench grader to the same rewards, and the step lines carry GiGPO's
// fields. A failing model server gives an error record, never a dropped line or a silent 0.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatClient } from '../../dist/models/chat-client.js';
import { ChatPolicy, ChatUserSimulator, runRollouts, stepRecords, type RolloutRecord } from '../../dist/agents/index.js';
import '../../dist/envs/index.js'; // registers the families the jobs name
import { runCli } from '../helpers/cli.js';
import type { TestServer } from '../helpers/openai-test-server.js';
import { goldReply, scriptedServer, userReply } from './scripted.js';

let models: TestServer;
let client: ChatClient;
const dir = mkdtempSync(join(tmpdir(), 'arbiter-rollout-'));

beforeAll(async () => {
  models = await scriptedServer();
  client = new ChatClient({ baseURL: models.url, apiKey: 'k', retry: { maxRetries: 0 } });
});
afterAll(async () => {
  await models.close();
});

const deps = () => ({ user: () => new ChatUserSimulator(client, { model: 'user' }) });
const job = (domain: string, t: number, k = 0) => ({
  id: `${domain}-${t}-${k}`,
  group: `${domain}-${t}`,
  env: 'tau_bench',
  options: { domain, task_index: t },
});

async function collect(jobs: ReturnType<typeof job>[], model = 'gold'): Promise<RolloutRecord[]> {
  const out: RolloutRecord[] = [];
  for await (const r of runRollouts(jobs, { policy: new ChatPolicy(client, { model }), deps: deps(), concurrency: 3 })) out.push(r);
  return out;
}

describe('runRollouts', () => {
  it('a gold policy earns reward 1 on every episode, records in job order, with per-turn credit', async () => {
    const jobs = [job('airline', 0), job('retail', 0), job('airline', 3), job('retail', 5)];
    const recs = await collect(jobs);
    expect(recs.map((r) => r.id)).toEqual(jobs.map((j) => j.id));
    for (const r of recs) {
      expect(r.error).toBeUndefined();
      expect(r.reward).toBe(1);
      expect(r.done).toBe(true);
      expect(r.credit.length).toBe(r.turns);
      expect(r.sample.messages[0]!.role).toBe('system');
      // every tool call the policy made was answered by the environment
      const calls = r.sample.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
      expect(r.sample.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(calls);
    }
    const steps = stepRecords(recs[0]!);
    expect(steps[0]).toMatchObject({ id: 'airline-0-0/0', uid: 'airline-0', traj_uid: 'airline-0-0', turn: 0, episode_return: 1 });
    expect(steps.reduce((a, s) => a + s.step_reward, 0)).toBeCloseTo(0.5 + 1, 12);
  });

  it('a policy server failure gives an error record (reward null, kind named) and the other episodes go on', async () => {
    models.onChat((req) => {
      if (req.body.model === 'user') return userReply(req);
      const first = (req.body.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content;
      if (first.includes('airline:1')) return { status: 400, body: { error: { message: 'context too long' } } };
      return goldReply(req);
    });
    try {
      const recs = await collect([job('airline', 0), job('airline', 1), job('airline', 2)]);
      expect(recs.map((r) => r.reward)).toEqual([1, null, 1]);
      expect(recs[1]!.error).toMatchObject({ kind: 'judge_server_error' });
      expect(recs[1]!.error!.message).toMatch(/HTTP 400/);
      expect(stepRecords(recs[1]!)).toEqual([]);
    } finally {
      models.onChat((req) => (req.body.model === 'user' ? userReply(req) : goldReply(req)));
    }
  });

  it('a policy that never finishes is cut at max_steps with reward 0', async () => {
    const recs: RolloutRecord[] = [];
    models.onChat((req) => (req.body.model === 'user' ? userReply(req) : { tool_calls: [{ name: 'think', arguments: '{"thought": "again"}' }] }));
    try {
      for await (const r of runRollouts([{ ...job('retail', 1), options: { domain: 'retail', task_index: 1, max_steps: 5 } }], {
        policy: new ChatPolicy(client, { model: 'loop' }),
        deps: deps(),
      }))
        recs.push(r);
    } finally {
      models.onChat((req) => (req.body.model === 'user' ? userReply(req) : goldReply(req)));
    }
    expect(recs[0]).toMatchObject({ reward: 0, done: true, truncated: true, turns: 5 });
  });
});

describe('arbiter env rollout → arbiter score', () => {
  it('writes trajectories the tau_bench grader scores to the recorded rewards, and GiGPO step lines', async () => {
    const out = join(dir, 'traj.jsonl');
    const steps = join(dir, 'steps.jsonl');
    const r = await runCli([
      'env',
      'rollout',
      '--domain',
      'retail',
      '--tasks',
      '0-2',
      '--trials',
      '2',
      '--policy-model',
      'gold',
      '--policy-base-url',
      models.url,
      '--user-model',
      'user',
      '--user-base-url',
      models.url,
      '-o',
      out,
      '--steps-output',
      steps,
      '--concurrency',
      '3',
    ]);
    expect(r.stderr).toMatch(/6 episodes, 0 failed, mean reward 1\.0000/);
    expect(r.code).toBe(0);
    const recs = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(recs.map((x) => x.id)).toEqual(['retail-0-0', 'retail-0-1', 'retail-1-0', 'retail-1-1', 'retail-2-0', 'retail-2-1']);
    // one trajectory made worse on purpose: it must grade to 0
    recs[3].sample.messages = recs[3].sample.messages.filter(
      (m: any, i: number, all: any[]) => !(m.tool_calls && i === all.findLastIndex((x: any) => x.tool_calls)),
    );
    recs[3].sample.messages = recs[3].sample.messages.filter(
      (m: any) => m.role !== 'tool' || recs[3].sample.messages.some((x: any) => x.tool_calls?.some((c: any) => c.id === m.tool_call_id)),
    );
    writeFileSync(out, recs.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const gfile = join(dir, 'tau.json');
    writeFileSync(gfile, JSON.stringify({ type: 'tau_bench', domain: 'retail', messages: '{{sample.messages}}', task: '{{item}}' }));
    const scored = await runCli(['score', '--grader', gfile, out]);
    expect(scored.code).toBe(0);
    const results = scored.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.map((x) => x.score)).toEqual([1, 1, 1, 0, 1, 1]);
    expect(results[0].steps).toEqual(recs[0].credit.map((c: any) => c.step_reward));
    const lines = readFileSync(steps, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(recs.reduce((a, x) => a + x.turns, 0));
    expect(Object.keys(lines[0]).sort()).toEqual(['anchor_obs', 'episode_return', 'id', 'step_reward', 'traj_uid', 'turn', 'uid']);
    // the two trials of a task took the same path: their step groups (uid, anchor_obs) pair up
    const t0 = lines.filter((l) => l.uid === 'retail-0');
    const anchors = (traj: string) => t0.filter((l) => l.traj_uid === traj).map((l) => l.anchor_obs);
    expect(anchors('retail-0-0')).toEqual(anchors('retail-0-1'));
  }, 60_000);

  it('refuses bad usage with exit 2 and a message', async () => {
    const r = await runCli([
      'env',
      'rollout',
      '--domain',
      'airline',
      '--tasks',
      '49-50',
      '--policy-model',
      'g',
      '--policy-base-url',
      models.url,
      '--user-model',
      'u',
      '--user-base-url',
      models.url,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/task 50 is out of range: airline has 50 test tasks/);
    const n = await runCli(['env', 'rollout', '--domain', 'airline', '--policy-model', 'g', '--policy-base-url', models.url]);
    expect(n.code).toBe(2);
    expect(n.stderr).toMatch(/need a user simulator/);
  });
});
