// Untrusted names in the simulated environments (issue 30, item 4): a call naming a property every
// JavaScript object inherits (constructor, __proto__, toString, hasOwnProperty, valueOf, …) is an
// unknown name to the program being simulated. Over every simulated BFCL API class, through the
// executor, the grader and `env serve`'s /step, it is a normal error observation (NameError or
// AttributeError, as Python gives); tau-bench's tools answer "Unknown action", FrozenLake's moves
// a malformed answer; never internal_error or HTTP 500.
import { afterAll, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import { API_CLASSES, BfclEnv, instanceName, Side } from '../../dist/envs/bfcl_multi_turn/apis/index.js';
import { createEnvServer, type EnvServer } from '../../dist/server/index.js';
import { loadTasks } from '../../dist/envs/tau_bench/domain.js';
import { grader } from '../bfcl/helpers.js';

/** Every name Object.prototype gives a plain object (constructor, __proto__, toString, hasOwnProperty, valueOf, …). */
const INHERITED = Object.getOwnPropertyNames(Object.prototype);
const CLASSES = Object.keys(API_CLASSES);

async function call(url: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

/** The call strings a model could write for one inherited name, on the instance `inst`. */
const forms = (name: string, inst: string) => [`${name}()`, `${name}(x=1)`, `${inst}.${name}()`, `${inst}.${name}`, `${inst}.${name}(1, y=2)`];

it('covers the names of the issue and all ten simulated classes', () => {
  expect(INHERITED).toEqual(expect.arrayContaining(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']));
  expect(CLASSES).toHaveLength(10);
});

describe('the executor, every simulated class', () => {
  it.each(CLASSES)('%s: each inherited name is a Python NameError/AttributeError result', (cls) => {
    const side = new Side({ env: new BfclEnv(), involvedClasses: [cls], scenario: () => undefined, longContext: false, modelName: 'm', entryId: 'e' });
    const inst = instanceName('m', 'e', cls);
    const bad: string[] = [];
    for (const name of INHERITED) {
      for (const call of forms(name, inst)) {
        let r: string;
        try {
          r = side.execute([call])[0]!;
        } catch (e) {
          bad.push(`${call}: threw ${(e as Error).name}: ${(e as Error).message}`);
          continue;
        }
        const want = call.startsWith(inst)
          ? `Error during execution: '${cls}' object has no attribute '${name}'`
          : `Error during execution: name '${name}' is not defined`;
        if (r !== want) bad.push(`${call}: ${r}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('the bfcl_multi_turn grader', () => {
  it('a model turn calling an inherited name on its instance is graded (valid), not internal_error', async () => {
    const item = {
      id: 'multi_turn_base_9999',
      initial_config: { GorillaFileSystem: { root: { alex: { type: 'directory', contents: {} } } } },
      involved_classes: ['GorillaFileSystem'],
      ground_truth: [['ls()']],
    };
    const inst = instanceName('model', 'entry', 'GorillaFileSystem'); // the grader's names without entry_id
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const r = await grade(grader(), { item, sample: { output_turns: [[`${inst}.${name}()`, `${name}()`, 'ls()']] } });
      expect(r.error, `${name}: ${r.reason}`).toBeUndefined();
      expect(r.valid, name).toBe(true);
    }
  });
});

describe('env serve /step', () => {
  const servers: EnvServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it.each(CLASSES)('%s: tool calls named by inherited names get tool error messages, HTTP 200', async (cls) => {
    const server = createEnvServer({ deps: {} });
    servers.push(server);
    const url = await server.listen({ port: 0 });
    const entry = {
      id: 'multi_turn_base_9999',
      question: [[{ role: 'user', content: 'go' }]],
      initial_config: {},
      involved_classes: [cls],
      ground_truth: [[]],
    };
    const r = await call(url, '/reset', { env: 'bfcl_multi_turn', entry });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const inst = instanceName('model', entry.id, cls, false);
    const names = INHERITED.flatMap((n) => [n, `${inst}.${n}`]);
    const tool_calls = names.map((n, i) => ({ id: `c${i}`, type: 'function', function: { name: n, arguments: '{}' } }));
    const s = await call(url, '/step', { session_id: r.json.session_id, action: { role: 'assistant', content: null, tool_calls: tool_calls.slice(0, 60) } });
    expect(s.status, JSON.stringify(s.json)).toBe(200);
    const contents = s.json.info.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
    expect(contents.length).toBeGreaterThan(0);
    for (const c of contents) expect(c).toMatch(/^Error during execution: (name '.*' is not defined|'.*' object has no attribute '.*')$/);
  });
});

describe('tau_bench', () => {
  const task = loadTasks('retail')[0] as Record<string, any>;

  it('actions named by inherited names are unknown actions in a valid grade; an output named __proto__ is reported', async () => {
    const g = loadGrader({ type: 'tau_bench', domain: 'retail', actions: '{{sample.actions}}' });
    const actions = [...INHERITED.map((name) => ({ name, kwargs: {} })), ...task.actions, { name: 'respond', kwargs: { content: 'done' } }];
    const r = await grade(g, { item: { ...task, outputs: ['__proto__'] }, sample: { actions } }, { services: new Services() });
    expect(r.error, r.reason).toBeUndefined();
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0); // the output was never told
    expect(Object.hasOwn(r.metadata!.outputs as object, '__proto__')).toBe(true);
    expect(JSON.stringify(r.metadata)).toMatch(/Unknown action constructor/);
  });
});

describe('frozenlake over env serve', () => {
  it('moves named by inherited names are a malformed answer, HTTP 200', async () => {
    const server = createEnvServer({ deps: {} });
    const url = await server.listen({ port: 0 });
    try {
      const r = await call(url, '/reset', { env: 'frozenlake', seed: 2, slippery: false });
      expect(r.status).toBe(200);
      const s = await call(url, '/step', {
        session_id: r.json.session_id,
        action: { role: 'assistant', content: `<think>.</think><answer>${INHERITED.join(' || ')}</answer>` },
      });
      expect(s.status, JSON.stringify(s.json)).toBe(200);
      expect(s.json.info).toMatchObject({ moves: [], well_formed: false });
    } finally {
      await server.close();
    }
  });
});
