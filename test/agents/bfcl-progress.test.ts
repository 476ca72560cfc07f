// The BFCL environment's turn-level credit on real entries: progress is a potential over the state
// (docs/bfcl-multi-turn.md, "Turn-level credit"), so an episode without calls earns 0 at every step,
// the ground truth reaches progress 1 with reward 1, a partly right episode gets what the definition
// gives when counted by hand, and a change made then undone nets 0, within a turn and across turns.
// Before this definition a turn without calls earned +0.056 on multi_turn_base_0 (progress 0.45).
import { afterAll, describe, expect, it } from 'vitest';
import { getEnv, loadBfclCategory } from '../../dist/envs/index.js';
import { createEnvServer, type EnvServer } from '../../dist/server/index.js';
import { toolCallOf } from './bfcl-gold.js';

const fam = getEnv('bfcl_multi_turn')!;
const W_PROGRESS = 0.5;
const W_ERROR = 0.1;

function entryOf(id: string) {
  const cat = id.replace(/^multi_turn_/, '').replace(/_\d+$/, '');
  return loadBfclCategory(cat as never).find((e: any) => e.id === id)!;
}

const reply = { role: 'assistant', content: 'Done.' };
let n = 0;
const call = (name: string, args: Record<string, unknown>) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id: `c${n++}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});

/** Plays `script(turn)` (responses for a user turn, a reply appended) until done; returns the steps' infos and the state. */
async function play(entryId: string, script: (turn: number) => unknown[]) {
  const ep = fam.create({ entry_id: entryId }, {});
  await ep.reset();
  const infos: any[] = [];
  let turn = 0;
  for (let guard = 0; guard < 200; guard++) {
    for (const action of [...script(turn), reply]) {
      const r = await ep.step(action);
      infos.push(r.info);
      if (r.done) return { infos, state: ep.state() as any, last: r };
      if (r.info.turn_ended) break;
    }
    turn++;
  }
  throw new Error('episode did not end');
}

const ENTRIES = ['multi_turn_base_0', 'multi_turn_base_1', 'multi_turn_base_2', 'multi_turn_miss_func_0', 'multi_turn_miss_param_0', 'multi_turn_base_150'];

describe('BFCL progress: a potential over the state', () => {
  it('an episode without calls: progress 0 and step reward 0 at every step, on several entries', async () => {
    for (const id of ENTRIES) {
      const { infos, state } = await play(id, () => []);
      expect(infos.length, id).toBeGreaterThan(1);
      for (const i of infos) {
        expect(i.progress, id).toBe(0);
        expect(i.step_reward, id).toBe(0);
      }
      expect(state.reward, id).toBe(0);
      expect(state.reward_info.valid, id).toBe(true);
    }
  });

  it('the ground truth: progress 1 and reward 1; the progress parts of the step rewards sum to the final progress', async () => {
    for (const id of ENTRIES) {
      const e = entryOf(id);
      const { infos, state } = await play(id, (t) => {
        const gt = e.groundTruth[t] ?? [];
        return gt.length
          ? [{ role: 'assistant', content: null, tool_calls: gt.map((c: string, k: number) => wrap(toolCallOf(c, e.involvedClasses, `g${t}_${k}`))) }]
          : [];
      });
      expect(state.reward, id).toBe(1);
      expect(infos.at(-1).progress, id).toBe(1);
      const errors = infos.reduce((a, i) => a + i.tool_errors, 0);
      const total = infos.reduce((a, i) => a + i.step_reward, 0);
      // sum of w·Δprogress telescopes to w·(final progress), then tool errors and the outcome
      expect(total, id).toBeCloseTo(W_PROGRESS * 1 - W_ERROR * errors + 1, 12);
    }
  });

  it('partly right (turn 0 without its mv, nothing after): the progress the definition gives, counted by hand', async () => {
    // multi_turn_base_0's conditions (paths of the flattened state the ground truth changes, and its
    // results other than "None"):
    //   turn 0 (cd, mkdir temp, mv final_report.pdf temp): temp (node, name) 2 + final_report.pdf in
    //     temp (node, name, content) 3 + gone from document 3 = 8 paths; results of cd and mv 2 (mkdir's is None)
    //   turn 1 (cd temp, grep): no public state (the current directory is private); 2 results
    //   turn 2 (sort): 1 result
    //   turn 3 (cd .., mv previous_report.pdf temp, cd temp, diff): 3 + 3 = 6 paths; 4 results
    const conditions = 8 + 2 + 2 + 1 + 6 + 4;
    const { infos, state } = await play('multi_turn_base_0', (t) => (t === 0 ? [call('cd', { folder: 'document' }), call('mkdir', { dir_name: 'temp' })] : []));
    // cd: its result is the ground truth's (1); mkdir: the two paths of temp (2)
    expect(infos[0].progress).toBeCloseTo(1 / conditions, 12);
    expect(infos[1].progress).toBeCloseTo(3 / conditions, 12);
    expect(infos.at(-1).progress).toBeCloseTo(3 / conditions, 12);
    const total = infos.reduce((a, i) => a + i.step_reward, 0);
    expect(total).toBeCloseTo(W_PROGRESS * (3 / conditions), 12);
    expect(state.reward).toBe(0);
  });

  it('a change made then undone nets 0: within a turn, and across turns', async () => {
    const cd = call('cd', { folder: 'document' });
    const within = await play('multi_turn_base_0', (t) => (t === 0 ? [cd, call('touch', { file_name: 'x.txt' }), call('rm', { file_name: 'x.txt' })] : []));
    const [afterCd, afterTouch, afterRm] = within.infos;
    expect(afterCd.progress).toBeGreaterThan(0); // cd's result
    expect(afterTouch.progress).toBeLessThan(afterCd.progress); // a file the ground truth does not make: 3 paths wrong
    expect(afterTouch.step_reward).toBeLessThan(0);
    expect(afterRm.progress).toBeCloseTo(afterCd.progress, 12);
    expect(afterTouch.step_reward + afterRm.step_reward).toBeCloseTo(0, 12); // no tool errors: the progress parts cancel

    const across = await play('multi_turn_base_0', (t) =>
      t === 0 ? [call('cd', { folder: 'document' }), call('touch', { file_name: 'x.txt' })] : t === 1 ? [call('rm', { file_name: 'x.txt' })] : [],
    );
    expect(across.infos.at(-1).progress).toBeCloseTo(afterCd.progress, 12);
  });

  it('nothing is credited for state the initial config already satisfies: a call that changes nothing earns 0', async () => {
    // ls changes nothing; mkdir of a directory that exists (the episode starts in workspace/) is an error result and no change
    const { infos } = await play('multi_turn_base_0', (t) => (t === 0 ? [call('ls', {}), call('mkdir', { dir_name: 'document' })] : []));
    expect(infos[0].progress).toBe(0);
    expect(infos[0].step_reward).toBe(0);
    expect(infos[1].progress).toBe(0);
    expect(infos[1].tool_errors).toBe(1);
    expect(infos[1].step_reward).toBeCloseTo(-W_ERROR, 12);
  });
});

function wrap(c: { id: string; name: string; arguments: string }) {
  return { id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } };
}

describe('env serve: /step over HTTP', () => {
  const servers: EnvServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it("multi_turn_base_0 without calls over HTTP: every step's reward and step reward are 0, progress 0", async () => {
    const server = createEnvServer({ deps: {} });
    servers.push(server);
    const url = await server.listen({ port: 0 });
    const post = async (path: string, body: unknown) =>
      (await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>;
    const r = await post('/reset', { env: 'bfcl_multi_turn', entry_id: 'multi_turn_base_0' });
    let done = false;
    let steps = 0;
    while (!done) {
      const s = await post('/step', { session_id: r.session_id, action: reply });
      expect(s.reward).toBe(0);
      expect(s.info.step_reward).toBe(0);
      expect(s.info.progress).toBe(0);
      done = s.done;
      steps++;
    }
    expect(steps).toBe(4);
  });
});
