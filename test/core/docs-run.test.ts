// The shell blocks of README.md, integrations/README.md and docs/*.md, run as written (test/helpers/docs.ts):
// in a scratch folder laid out like the project, with `arbiter` on PATH. What a page leaves to the
// user (their samples, their grader file, a model server) is made here first; hosts and ports are
// swapped for free loopback ones; servers run in the background as a user runs them in another
// terminal. Each test then checks what the page says the commands give. docs/recipes.md runs in
// test/recipes/; test/core/docs-walk.test.ts checks that every block is claimed by a test.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';
import { docBlock, docWorkdir, runDocSession, type DocSession } from '../helpers/docs.js';
import { startTestServer } from '../helpers/openai-test-server.js';
import { goldReply, userReply } from '../agents/scripted.js';
import { freePort, postJSON } from '../queue/procs.js';

type Rec = Record<string, any>;
const readJsonl = (p: string): Rec[] =>
  readFileSync(p, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Rec);
const writeJsonl = (p: string, rows: object[]) => writeFileSync(p, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
const lastOut = (s: DocSession) => s.runs.at(-1)!.result;

// the user's own GSM8K-style samples: uid groups, the gold answer as item.label, right and wrong answers
const gsmSamples = (groups: number, size: number) =>
  Array.from({ length: groups * size }, (_, i) => {
    const g = Math.floor(i / size);
    const right = i % 3 !== 0;
    return {
      id: `s${i}`,
      uid: `q${g}`,
      item: { question: `What is ${g} + 10?`, label: String(10 + g) },
      sample: { output_text: `Working... A: ${right ? 10 + g : 99}` },
    };
  });

let sessions: DocSession[] = [];
const started = (s: DocSession) => {
  sessions.push(s);
  return s;
};
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.stop()));
  sessions = [];
});

describe('README.md', () => {
  it('the first command grades the bundled example (set-up and `npm test` are what .ci/run runs)', async () => {
    const block = docBlock('README.md', 'examples/arithmetic/grader.json');
    const dir = docWorkdir();
    const s = await runDocSession(block.replace('./scripts/setup.sh && ', ''), { dir });
    const out = readJsonl(join(dir, 'examples/arithmetic/out.jsonl'));
    expect(out).toHaveLength(readJsonl(join(ROOT, 'examples/arithmetic/samples.jsonl')).length);
    expect(out.every((o) => o.valid === true)).toBe(true);
    expect(s.runs).toHaveLength(1);
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(/\.\/scripts\/setup\.sh[\s\S]*npm test/);
  }, 120_000);

  it("re-scoring JudgeBench's published judgments prints the number the page shows", async () => {
    const block = docBlock('README.md', 'arbiter eval judgebench');
    const dir = docWorkdir();
    const s = await runDocSession(block, { dir });
    expect(lastOut(s).stdout + lastOut(s).stderr).toContain(/# (Overall: .*)$/m.exec(block)![1]!);
    expect(readFileSync(join(dir, 'jb.html'), 'utf8')).toMatch(/<html/i);
  }, 120_000);

  it('the queue lines: Redis, the server and a worker as the page starts them, on loopback', async () => {
    const block = docBlock('README.md', 'redis-server --port 6379 --bind 10.0.0.5');
    const dir = docWorkdir();
    writeFileSync(join(dir, 'g.json'), readFileSync(join(ROOT, 'graders/gsm8k.json')));
    const [redis, http] = [await freePort(), await freePort()];
    const s = started(
      await runDocSession(
        block.replaceAll('10.0.0.5', '127.0.0.1').replaceAll('6379', String(redis)).replace('--host 0.0.0.0', `--host 127.0.0.1 --port ${http}`),
        {
          dir,
          env: { PW: 'pw-doc', T: 'tok-doc' },
        },
      ),
    );
    expect(s.servers).toHaveLength(3);
    const r = await postJSON(
      `http://127.0.0.1:${http}/v1/score`,
      {
        samples: [
          { id: 'a', item: { label: '4' }, sample: { output_text: 'A: 4' } },
          { id: 'b', item: { label: '4' }, sample: { output_text: 'A: 5' } },
        ],
      },
      { authorization: 'Bearer tok-doc' },
    );
    expect(r.status).toBe(200);
    expect((r.json as Rec).results.map((x: Rec) => [x.id, x.valid, x.score])).toEqual([
      ['a', true, 1],
      ['b', true, 0],
    ]);
    await s.stop();
  }, 120_000);

  it('the agent lines: score trajectories, serve episodes, roll out tau-bench and BFCL with the policy and user the page names', async () => {
    const block = docBlock('README.md', 'arbiter env rollout --domain retail');
    const dir = docWorkdir();
    // tau.json is the config the page's comment gives; trajectories.jsonl the user's records
    const config = /\{"type": "tau_bench".*\}/.exec(block)![0];
    writeFileSync(join(dir, 'tau.json'), config);
    const task = JSON.parse(readFileSync(dataPath('tau-bench/airline/tasks_test.json'), 'utf8'))[0];
    writeJsonl(join(dir, 'trajectories.jsonl'), [
      {
        id: 't0',
        item: task,
        sample: {
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Hello.' },
          ],
        },
      },
    ]);
    const policy = await startTestServer();
    policy.onChat(goldReply);
    const user = await startTestServer();
    user.onChat(userReply);
    try {
      const s = started(
        await runDocSession(
          block
            .replaceAll('http://127.0.0.1:8000/v1', policy.url)
            .replaceAll('http://127.0.0.1:8001/v1', user.url)
            .replace(/arbiter env serve /, 'arbiter env serve --port 0 '),
          { dir },
        ),
      );
      // the recorded trajectory: graded, and it did not do the task
      expect(JSON.parse(s.runs[0]!.result.stdout)).toMatchObject({ id: 't0', valid: true, score: 0 });
      // the gold policy does every task the page rolls out: reward 1 each, 4 trials
      const traj = readJsonl(join(dir, 'traj.jsonl'));
      expect(traj).toHaveLength(10 * 4);
      expect(traj.every((t) => t.reward === 1)).toBe(true);
      expect(readJsonl(join(dir, 'steps.jsonl')).length).toBeGreaterThan(0);
      const bfcl = readJsonl(join(dir, 'bfcl.jsonl'));
      expect(bfcl).toHaveLength(10 * 4);
      expect(existsSync(join(dir, 'bfcl-steps.jsonl'))).toBe(true);
      await s.stop();
    } finally {
      await policy.close();
      await user.close();
    }
  }, 300_000);
});

describe('integrations/README.md', () => {
  let dir: string;
  beforeAll(() => {
    dir = docWorkdir();
  });
  const serveBlock = async (block: string) => {
    const port = await freePort();
    return { port, s: started(await runDocSession(block.replaceAll('8000', String(port)), { dir })) };
  };

  it("OpenRLHF: the server line starts, and the --reward.remote_url it gives answers OpenRLHF's body", async () => {
    const { port, s } = await serveBlock(docBlock('integrations/README.md', '--reward.remote_url'));
    const url = /--reward\.remote_url "([^"]+)"/.exec(docBlock('integrations/README.md', '--reward.remote_url').replaceAll('8000', String(port)))![1]!;
    const r = await postJSON(url, { query: ['Q: 2+2? A: 4', 'Q: 2+2? A: 5'], prompts: ['Q: 2+2?', 'Q: 2+2?'], labels: ['4', '4'] });
    expect(r.status).toBe(200);
    expect((r.json as Rec).rewards).toEqual([1, 0]);
    await s.stop();
  }, 60_000);

  it('verl: the server line starts with the grader verl names (openai/gsm8k)', async () => {
    const { port, s } = await serveBlock(docBlock('integrations/README.md', 'custom_reward_function.name=compute_score_async'));
    const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { graders: string[] };
    expect(health.graders).toEqual(['openai/gsm8k']);
    await s.stop();
  }, 60_000);

  it("slime: both --rm-url forms answer slime's body (a bare float, and the dict with --reward-key reward)", async () => {
    const { port, s } = await serveBlock(docBlock('integrations/README.md', '--rm-type remote_rm'));
    const block = docBlock('integrations/README.md', '--rm-type remote_rm').replaceAll('8000', String(port));
    const urls = [...block.matchAll(/--rm-url "?([^"\s]+)"?/g)].map((m) => m[1]!);
    expect(urls).toHaveLength(2);
    const bare = await postJSON(urls[0]!, { prompt: 'Q: 2+2?', response: 'A: 4', label: '4' });
    expect(bare.json).toBe(1);
    const dict = await postJSON(urls[1]!, { prompt: 'Q: 2+2?', response: 'A: 5', label: '4' });
    expect((dict.json as Rec).reward).toBe(0);
    await s.stop();
  }, 60_000);

  it("LLaMA-Factory: the judge server answers the page's reward_model URL, the judge reached at its base_url", async () => {
    // graders/judge.json asks a model on 127.0.0.1:8001: a protocol-faithful stand-in listens there when the port is free
    const judge = await startTestServer();
    judge.onChat(() => ({ content: JSON.stringify({ steps: [{ description: 'read', conclusion: 'good' }], result: 8 }) }));
    const port = await freePort();
    const grader = JSON.parse(readFileSync(join(ROOT, 'graders/judge.json'), 'utf8'));
    // the page's graders/judge.json, its base_url the stand-in's (a copy: graders/ is the project's own)
    const local = docWorkdir();
    rmSync(join(local, 'graders'));
    mkdirSync(join(local, 'graders'));
    writeFileSync(join(local, 'graders/judge.json'), JSON.stringify({ ...grader, base_url: judge.url }));
    const block = docBlock('integrations/README.md', 'reward_model_type: api');
    try {
      const s = started(await runDocSession(block.replaceAll('8000', String(port)), { dir: local }));
      const url = /reward_model: (\S+)/.exec(block.replaceAll('8000', String(port)))![1]!;
      const r = await postJSON(url, {
        model: 'judge',
        messages: ['<|im_start|>user\nSay hi.<|im_end|>\n<|im_start|>assistant\nHi!<|im_end|>'],
      });
      expect(r.status).toBe(200);
      expect((r.json as Rec).scores).toHaveLength(1);
      // the judge's own 1-10 score (graders/judge.json's range), as LLaMA-Factory reads `scores`
      expect((r.json as Rec).scores[0]).toBe(8);
      await s.stop();
    } finally {
      await judge.close();
    }
  }, 60_000);

  it('NeMo-Gym: the copy line lays the server out where the YAML config says (gym itself is NeMo-Gym)', async () => {
    const gym = docWorkdir();
    mkdirSync(join(gym, 'resources_servers'), { recursive: true });
    const block = docBlock('integrations/README.md', 'resources_servers/arbiter').replaceAll('/path/to/arbiter', ROOT.replace(/\/$/, ''));
    await runDocSession(block, { dir: gym });
    for (const f of ['app.py', 'requirements.txt', 'configs/arbiter.yaml', 'data/example.jsonl', 'grader.json'])
      expect(existsSync(join(gym, 'resources_servers/arbiter', f)), f).toBe(true);
    const yaml = readFileSync(join(gym, 'resources_servers/arbiter/configs/arbiter.yaml'), 'utf8');
    const data = /jsonl_fpath: (\S+)/.exec(yaml)![1]!;
    expect(existsSync(join(gym, data))).toBe(true);
  });
});

describe('docs/agents.md', () => {
  it("tau-bench's result files grade as they are once each entry is a line (jq), the recorded gold trajectory scoring 1", async () => {
    const dir = docWorkdir();
    const tasks = JSON.parse(readFileSync(dataPath('tau-bench/airline/tasks_test.json'), 'utf8'));
    writeFileSync(join(dir, 'tau.json'), JSON.stringify({ type: 'tau_bench', domain: 'airline', messages: '{{sample.messages}}', task: '{{item}}' }));
    // a result file as tau-bench writes it: one trajectory that only greets (reward 0)
    writeFileSync(
      join(dir, 'results.json'),
      JSON.stringify(
        ['Hello.', 'Bye.'].map((reply, i) => ({
          task_id: i,
          trial: 0,
          reward: 0,
          info: { task: tasks[i] },
          traj: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: reply },
          ],
        })),
      ),
    );
    const s = await runDocSession(docBlock('docs/agents.md', 'results.json > traj.jsonl'), { dir });
    const out = lastOut(s)
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Rec);
    expect(out.map((o) => [o.id, o.valid, o.score])).toEqual([
      ['0-0', true, 0],
      ['1-0', true, 0],
    ]);
  }, 60_000);

  it('the environment server line starts (the user simulator named), and the rollout and re-score lines give every gold trajectory 1', async () => {
    const dir = docWorkdir();
    writeFileSync(join(dir, 'tau.json'), JSON.stringify({ type: 'tau_bench', domain: 'airline', messages: '{{sample.messages}}', task: '{{item}}' }));
    const policy = await startTestServer();
    policy.onChat(goldReply);
    const user = await startTestServer();
    user.onChat(userReply);
    try {
      const port = await freePort();
      const serveLine = docBlock('docs/agents.md', 'arbiter env serve --user-model');
      const s = started(await runDocSession(serveLine.replace('http://127.0.0.1:8001/v1', user.url).replace('--port 8100', `--port ${port}`), { dir }));
      const reset = await postJSON(`http://127.0.0.1:${port}/reset`, { domain: 'airline', task_index: 0 });
      expect(reset.status).toBe(200);
      expect((reset.json as Rec).observation).toBeDefined();
      await s.stop();
      const r = await runDocSession(
        docBlock('docs/agents.md', 'arbiter env rollout --domain airline')
          .replaceAll('http://127.0.0.1:8000/v1', policy.url)
          .replaceAll('http://127.0.0.1:8001/v1', user.url),
        { dir, timeoutMs: 240_000 },
      );
      const traj = readJsonl(join(dir, 'traj.jsonl'));
      expect(traj).toHaveLength(50 * 4);
      expect(traj.every((t) => t.reward === 1)).toBe(true);
      const rescored = lastOut(r)
        .stdout.trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Rec);
      expect(rescored).toHaveLength(200);
      expect(rescored.every((x) => x.valid === true && x.score === 1)).toBe(true);
    } finally {
      await policy.close();
      await user.close();
    }
  }, 300_000);
});

describe('docs/groups.md', () => {
  it('advantages from a config written with echo: each group of 16 centred and scaled by its std', async () => {
    const dir = docWorkdir();
    const scored = Array.from({ length: 32 }, (_, i) => ({ id: `r${i}`, uid: `q${i >> 4}`, score: (i * 7) % 5 === 0 ? 1 : 0, valid: true }));
    writeJsonl(join(dir, 'scored.jsonl'), scored);
    await runDocSession(docBlock('docs/groups.md', 'arbiter advantages --config grpo.json scored.jsonl'), { dir });
    const out = readJsonl(join(dir, 'with-advantages.jsonl'));
    expect(out).toHaveLength(32);
    for (const g of [0, 1]) {
      const xs = scored.slice(g * 16, g * 16 + 16).map((r) => r.score);
      const mean = xs.reduce((a, b) => a + b, 0) / 16;
      const std = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / 15);
      out.slice(g * 16, g * 16 + 16).forEach((o, k) => expect(o.advantage).toBeCloseTo((xs[k]! - mean) / (std + 1e-6), 6));
    }
  });

  it('the pipe: score | advantages | monitor', async () => {
    const dir = docWorkdir();
    cpSync(join(ROOT, 'graders/gsm8k.json'), join(dir, 'gsm8k.json'));
    writeFileSync(join(dir, 'grpo.json'), JSON.stringify({ estimator: 'grpo' }));
    writeJsonl(join(dir, 'samples.jsonl'), gsmSamples(4, 6));
    const s = await runDocSession(docBlock('docs/groups.md', 'arbiter monitor -'), { dir });
    expect(lastOut(s).stdout).toMatch(/monitor|alert|ok/i);
  }, 60_000);

  it('one command: grade by uid, advantages and monitors in one pass', async () => {
    const dir = docWorkdir();
    cpSync(join(ROOT, 'graders/gsm8k.json'), join(dir, 'grader.json'));
    writeFileSync(join(dir, 'grpo.json'), JSON.stringify({ estimator: 'grpo' }));
    writeFileSync(join(dir, 'monitor.json'), JSON.stringify({ batch_size: 1000 }));
    writeJsonl(join(dir, 'samples.jsonl'), gsmSamples(4, 6));
    await runDocSession(docBlock('docs/groups.md', '--monitor monitor.json -o out.jsonl'), { dir });
    const out = readJsonl(join(dir, 'out.jsonl'));
    expect(out).toHaveLength(24);
    expect(out.map((o) => o.score)).toEqual(gsmSamples(4, 6).map((s) => (s.sample.output_text.endsWith('99') ? 0 : 1)));
    expect(out.every((o) => typeof o.advantage === 'number')).toBe(true);
  }, 60_000);

  it('select and pairs read the scored lines and the samples', async () => {
    const dir = docWorkdir();
    const samples = gsmSamples(3, 4);
    writeJsonl(join(dir, 'samples.jsonl'), samples);
    writeFileSync(
      join(dir, 'g.json'),
      JSON.stringify({ type: 'multi', graders: { correct: JSON.parse(readFileSync(join(ROOT, 'graders/gsm8k.json'), 'utf8')) }, calculate_output: 'correct' }),
    );
    await runDocSession('arbiter score -g g.json samples.jsonl -o scored.jsonl', { dir });
    await runDocSession(docBlock('docs/groups.md', '--where "correct == 1" --tie shortest'), { dir });
    const best = readJsonl(join(dir, 'best.jsonl'));
    expect(best.map((b) => b.uid).sort()).toEqual(['q0', 'q1', 'q2']);
    const pairs = readJsonl(join(dir, 'pairs.jsonl'));
    expect(pairs.length).toBeGreaterThan(0);
    for (const p of pairs) expect(JSON.stringify(p)).toContain('99');
  }, 60_000);

  it('the monitor line reads a scored file and its samples', async () => {
    const dir = docWorkdir();
    cpSync(join(ROOT, 'graders/gsm8k.json'), join(dir, 'g.json'));
    writeJsonl(join(dir, 'in.jsonl'), gsmSamples(3, 4));
    await runDocSession('arbiter score -g g.json in.jsonl -o out.jsonl', { dir });
    const s = await runDocSession(docBlock('docs/groups.md', 'arbiter monitor out.jsonl --samples in.jsonl'), { dir });
    expect(lastOut(s).stdout.length).toBeGreaterThan(0);
  }, 60_000);
});

describe('docs/eval.md', () => {
  it('re-scores the published judgments, runs a judge on the pairs (resumable) and compares the two reports', async () => {
    const dir = docWorkdir();
    const judge = await startTestServer();
    // a judge that always prefers the first response shown
    judge.onChat(() => ({ content: '[[A>B]]' }));
    // the page's own pairwise judge config, its base_url the stand-in's
    const config = /```json\n(\{ "type": "pairwise", "model": "judge"[\s\S]*?)```/.exec(readFileSync(join(ROOT, 'docs/eval.md'), 'utf8'))![1]!;
    writeFileSync(join(dir, 'judge.json'), config.replace('http://localhost:8000/v1', judge.url));
    try {
      const block = docBlock('docs/eval.md', 'arbiter report jb.json mine.json');
      const s = await runDocSession(block, { dir, timeoutMs: 240_000 });
      expect(s.runs[0]!.result.stdout + s.runs[0]!.result.stderr).toContain('65.71');
      for (const f of ['jb.json', 'jb.html', 'jb.md', 'mine.html', 'mine.json', 'jb-run.jsonl', 'compare.html', 'compare.md'])
        expect(existsSync(join(dir, f)), f).toBe(true);
      const mine = JSON.parse(readFileSync(join(dir, 'mine.json'), 'utf8'));
      expect(JSON.stringify(mine)).toMatch(/overall/i);
    } finally {
      await judge.close();
    }
  }, 300_000);
});

describe('docs/queue.md', () => {
  it('Redis, one server and a worker started as the page does (loopback, a free port), grading gsm8k and code', async () => {
    const dir = docWorkdir();
    const [redis, http] = [await freePort(), await freePort()];
    const block = docBlock('docs/queue.md', '--appendonly yes')
      .replaceAll('10.0.0.5', '127.0.0.1')
      .replaceAll('6379', String(redis))
      .replace('--host 0.0.0.0', `--host 127.0.0.1 --port ${http}`);
    const s = started(await runDocSession(block, { dir, env: { REDIS_PASSWORD: 'pw-doc', ARBITER_TOKEN: 'tok-doc' } }));
    const auth = { authorization: 'Bearer tok-doc' };
    const g = await postJSON(
      `http://127.0.0.1:${http}/v1/score`,
      { grader: 'gsm8k', samples: [{ id: 'a', item: { label: '4' }, sample: { output_text: 'A: 4' } }] },
      auth,
    );
    expect((g.json as Rec).results[0]).toMatchObject({ id: 'a', valid: true, score: 1 });
    const c = await postJSON(
      `http://127.0.0.1:${http}/v1/score`,
      {
        grader: 'code',
        samples: [{ id: 'c', item: { label: 'assert add(1, 2) == 3' }, sample: { output_text: '```python\ndef add(a, b):\n    return a + b\n```' } }],
      },
      auth,
    );
    expect((c.json as Rec).results[0]).toMatchObject({ id: 'c', valid: true, score: 1 });
    await s.stop();
  }, 120_000);
});

describe('docs/server.md', () => {
  it('the serve line starts with both graders', async () => {
    const port = await freePort();
    const s = started(await runDocSession(docBlock('docs/server.md', '--grader graders/math.json --port 8000').replace('--port 8000', `--port ${port}`)));
    const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { graders: string[] };
    expect(health.graders.sort()).toEqual(['gsm8k', JSON.parse(readFileSync(join(ROOT, 'graders/math.json'), 'utf8')).name].sort());
    await s.stop();
  }, 60_000);
});

describe('docs/bfcl-multi-turn.md', () => {
  it('the long-context export runs on a checkout laid out as BFCL', async () => {
    const dir = docWorkdir();
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(ROOT, join(dir, 'node_modules', 'arbiter'));
    const gorilla = join(dir, 'gorilla');
    const src = join(gorilla, 'berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code');
    mkdirSync(src, { recursive: true });
    const { LONG_CONTEXT_KEYS } = await import('../../dist/envs/bfcl_multi_turn/apis/index.js');
    writeFileSync(join(src, 'long_context.py'), `${(LONG_CONTEXT_KEYS as readonly string[]).map((k) => `${k} = ['x']`).join('\n')}\n`);
    const block = docBlock('docs/bfcl-multi-turn.md', 'long-context-export.py /path/to/gorilla').replace('/path/to/gorilla', gorilla);
    await runDocSession(`${block}\ntest -s "$ARBITER_BFCL_LONG_CONTEXT"`, { dir });
    const exported = JSON.parse(readFileSync(join(dir, 'bfcl-long-context.json'), 'utf8'));
    expect(Object.keys(exported).length).toBeGreaterThan(0);
  }, 60_000);

  it('reset and step by curl, then a rollout and its re-score', async () => {
    const dir = docWorkdir();
    // bfcl.json: the page's own grader config
    writeFileSync(
      join(dir, 'bfcl.json'),
      /```json\n(\{\n {2}"type": "bfcl_multi_turn"[\s\S]*?)```/.exec(readFileSync(join(ROOT, 'docs/bfcl-multi-turn.md'), 'utf8'))![1]!,
    );
    const policy = await startTestServer();
    policy.onChat(() => ({ content: 'Done.' }));
    const port = await freePort();
    const srv = started(await runDocSession(`arbiter env serve --port ${port}`, { dir }));
    try {
      const block = docBlock('docs/bfcl-multi-turn.md', 'localhost:8100/reset')
        .replaceAll('localhost:8100', `127.0.0.1:${port}`)
        .replaceAll('http://127.0.0.1:8000/v1', policy.url);
      const [reset, ...rest] = block.split(/\n(?=curl -s 127\.0\.0\.1:\d+\/step|arbiter )/);
      const r1 = await runDocSession(reset!, { dir });
      const sessionId = (JSON.parse(lastOut(r1).stdout) as Rec).session_id as string;
      expect(sessionId).toBeTruthy();
      const step = await runDocSession(rest.join('\n').replace('"session_id": "…"', `"session_id": "${sessionId}"`), { dir, timeoutMs: 240_000 });
      const stepReply = JSON.parse(step.runs[0]!.result.stdout) as Rec;
      expect(stepReply).toMatchObject({ done: expect.any(Boolean) });
      expect(JSON.stringify(stepReply.observation)).toMatch(/document/);
      const records = readJsonl(join(dir, 'bfcl.jsonl'));
      expect(records).toHaveLength(50 * 4);
      const rescored = lastOut(step)
        .stdout.trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Rec);
      expect(rescored).toHaveLength(200);
      expect(rescored.every((x) => x.valid === true)).toBe(true);
      // what the records say and what the grader says again agree
      expect(rescored.map((x) => x.score)).toEqual(records.map((x) => x.reward));
    } finally {
      await srv.stop();
      await policy.close();
    }
  }, 300_000);
});
