// NeMo-Gym (and NeMo-RL through it), from its own calling convention
// (test/integrations/clients/nemo_gym.py reproduces SimpleAgent.run and the rollout collector):
// /seed_session, then /verify with the rollout row and the model's Responses-API object, the reply
// validated as a BaseVerifyResponse; /aggregate_metrics; the /ng-rollout/<id> prefix; and the
// launcher NeMo-Gym starts as a resources server (integrations/nemo_gym/app.py).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseOutput } from '../../dist/server/index.js';
import { CLI } from '../server/serve-process.js';
import { gsm8k, start, type Running } from '../server/helpers.js';
import { CLIENTS, INTEGRATIONS, runPython } from './run-python.js';

const CLIENT = `${CLIENTS}nemo_gym.py`;
const GRADER = JSON.parse(readFileSync(`${INTEGRATIONS}nemo_gym/grader.json`, 'utf8'));
const ROWS = readFileSync(`${INTEGRATIONS}nemo_gym/data/example.jsonl`, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
let srv: Running;

beforeAll(async () => {
  const parts = { correct: GRADER, tidy: { type: 'string_check', input: '{{sample.output_text}}', reference: 'A:', operation: 'like' } };
  srv = await start(
    {
      gsm8k: GRADER,
      multi: { type: 'multi', graders: parts, calculate_output: 'correct * tidy' },
      sum: { type: 'multi', graders: parts, calculate_output: 'correct + tidy' },
    },
    { fallbackReward: -1 },
  );
});
afterAll(() => srv.close());

/** A Responses-API object as a model server returns it: a reasoning item, then the message. */
function responseObject(text: string, i: number) {
  return {
    id: `resp_${i}`,
    object: 'response',
    created_at: 1761955953.0,
    model: 'policy',
    status: 'completed',
    error: null,
    incomplete_details: null,
    output: [
      { id: `rs_${i}`, type: 'reasoning', summary: [], encrypted_content: null },
      { id: `msg_${i}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] },
    ],
    parallel_tool_calls: true,
    temperature: 1.0,
    tool_choice: 'auto',
    tools: [],
    top_p: 1.0,
    usage: {
      input_tokens: 84,
      output_tokens: 12,
      total_tokens: 96,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

const solutions = gsm8k(5).map((d) => d.solution);
const rows = ROWS.map((r, i) => ({ ...r, _ng_task_index: i, _ng_rollout_index: 0 }));
// the shipped example rows are the first five GSM8K problems; the human labels say which of the
// model's solutions to them are right
const expected = gsm8k(5).map((d) => (d.is_correct ? 1 : 0));

describe('NeMo-Gym resources server', () => {
  it('verifies SimpleAgent rollouts: row echoed, float reward, valid BaseVerifyResponse, aggregate metrics', async () => {
    const r = await runPython(CLIENT, { url: srv.url, rows, responses: solutions.map(responseObject) });
    expect(r.stderr).toBe('');
    for (const [i, ro] of r.out.rollouts.entries()) {
      expect(ro.seed).toEqual({});
      expect(ro.status).toBe(200);
      expect(ro.problems).toEqual([]);
      expect(ro.verify).toMatchObject({ ...rows[i], response: responseObject(solutions[i]!, i), arbiter_invalid: 0 });
      expect(ro.verify.reward).toBe(expected[i]);
    }
    expect(r.out.aggregate_status).toBe(200);
    const rewards = r.out.rollouts.map((x: { verify: { reward: number } }) => x.verify.reward);
    expect(r.out.aggregate.agent_metrics['mean/reward']).toBeCloseTo(rewards.reduce((a: number, b: number) => a + b, 0) / rewards.length, 12);
    expect(r.out.aggregate.key_metrics['mean/reward']).toBe(r.out.aggregate.agent_metrics['mean/reward']);
    expect(r.out.aggregate.group_level_metrics.map((g: Record<string, number>) => g._ng_task_index)).toEqual([0, 1, 2, 3, 4]);
    expect(r.out.aggregate.group_level_metrics[1]['mean/reward']).toBe(rewards[1]);
  });

  it('answers under the /ng-rollout/<id> prefix; multi graders give reward_components only when they sum to the reward', async () => {
    const r = await runPython(CLIENT, { url: srv.url, prefix: '/ng-rollout/0-0', rows: rows.slice(0, 1), responses: [responseObject('So A: 18', 0)] });
    expect(r.out.rollouts[0].problems).toEqual([]);
    expect(r.out.rollouts[0].verify.reward).toBe(1);
    const m = await runPython(CLIENT, {
      url: srv.url,
      query: '?grader=multi',
      rows: rows.slice(0, 2),
      responses: [responseObject('So A: 18', 0), responseObject('3', 1)],
    });
    expect(m.out.rollouts.map((x: { problems: string[] }) => x.problems)).toEqual([[], []]);
    // correct * tidy is not the components' sum: NeMo-RL would reject reward_components, so only arbiter_components
    expect(
      m.out.rollouts.map((x: { verify: Record<string, unknown> }) => [x.verify.reward, x.verify.arbiter_components, 'reward_components' in x.verify]),
    ).toEqual([
      [1, { correct: 1, tidy: 1 }, false],
      [0, { correct: 1, tidy: 0 }, false],
    ]);
    const sum = await runPython(CLIENT, {
      url: srv.url,
      query: '?grader=sum',
      rows: rows.slice(0, 2),
      responses: [responseObject('So A: 18', 0), responseObject('3', 1)],
    });
    expect(sum.out.rollouts.map((x: { problems: string[] }) => x.problems)).toEqual([[], []]);
    expect(sum.out.rollouts.map((x: { verify: Record<string, unknown> }) => [x.verify.reward, x.verify.reward_components])).toEqual([
      [2, { correct: 1, tidy: 1 }],
      [1, { correct: 1, tidy: 0 }],
    ]);
  });

  it('an ungradable rollout is a 200 with the fallback reward, arbiter_invalid 1.0 and the error', async () => {
    const r = await runPython(CLIENT, { url: srv.url, rows: rows.slice(0, 2), responses: [{ id: 'x', output: 'not a list' }, responseObject('A: 18', 1)] });
    expect(r.out.rollouts[0].status).toBe(200);
    expect(r.out.rollouts[0].problems).toEqual([]);
    expect(r.out.rollouts[0].verify).toMatchObject({
      reward: -1,
      arbiter_invalid: 1,
      arbiter_error: { kind: 'bad_input', message: 'field "response.output" must be a list of output items' },
    });
    expect(r.out.aggregate.agent_metrics['mean/arbiter_invalid']).toBe(0.5);
  });

  it('takes the text of output_text parts of message items, and function calls as output_tools', () => {
    const out = responseOutput({
      output: [
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'thinking' }] },
        { type: 'function_call', call_id: 'c1', name: 'add', arguments: '{"a":1}' },
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'A: ' },
            { type: 'refusal', refusal: 'no' },
            { type: 'output_text', text: '3' },
          ],
        },
      ],
    });
    expect(out).toEqual({
      ok: true,
      sample: { output_text: 'A: 3', output_tools: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":1}' } }] },
    });
    expect(responseOutput({ output: [{ type: 'message', content: [{ type: 'output_text' }] }] })).toEqual({
      ok: false,
      message: 'response.output[0]: an output_text part has no text string',
    });
  });

  it('requirements.txt installs nemo-gym as every Gym resources server does, and nothing Gym drops outside a checkout is left', () => {
    // nemo_gym/cli/setup_command.py: in a NeMo-Gym checkout `uv pip install -r requirements.txt`;
    // elsewhere nemo-gym from PyPI plus the lines without '../..' (grep -v -F '../..')
    const lines = readFileSync(`${INTEGRATIONS}nemo_gym/requirements.txt`, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(lines).toEqual(['-e nemo-gym[dev] @ ../../']);
    expect(lines.filter((l) => !l.includes('../..'))).toEqual([]);
  });

  it('runs as the resources server NeMo-Gym launches (app.py execs arbiter serve on the configured host and port)', async () => {
    const config = {
      arbiter: {
        resources_servers: {
          arbiter: { entrypoint: 'app.py', domain: 'math', host: '127.0.0.1', port: 0, graders: ['grader.json'], arbiter_args: ['--fallback-reward', '-2'] },
        },
      },
    };
    const child = spawn('python3', ['app.py'], {
      cwd: `${INTEGRATIONS}nemo_gym`,
      env: { ...process.env, NEMO_GYM_CONFIG_DICT: JSON.stringify(config), NEMO_GYM_CONFIG_PATH: 'arbiter', ARBITER_BIN: `${process.execPath} ${CLI}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        err += d;
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`launcher exited: ${err}`)));
    });
    const r = await runPython(CLIENT, { url, rows: rows.slice(0, 2), responses: [responseObject('A: 18', 0), { id: 'x' }] });
    expect(r.out.rollouts[0].verify.reward).toBe(1);
    expect(r.out.rollouts[1].verify).toMatchObject({ reward: -2, arbiter_invalid: 1 });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
