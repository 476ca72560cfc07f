// TauEpisode through the library with an in-process user simulator: what it commits per step, how
// a failed user turn leaves the episode, and that its final reward is the grader's on its messages.
import { describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import type { UserSimulator } from '../../dist/agents/index.js';
import { TauEpisode } from '../../dist/envs/index.js';
import { loadTasks } from '../../dist/envs/tau_bench/domain.js';
import { dataPath } from '../helpers/data.js';

// tau-bench's data (README "Benchmark data"): this file fails at once, naming the path, when it is absent
dataPath('tau-bench/airline/flights.json');

/** A user that answers from a list, failing where the list holds an Error. */
function scriptedUser(replies: (string | Error)[]): UserSimulator & { heard: string[] } {
  const heard: string[] = [];
  return {
    heard,
    reset: async () => 'Hi, please help.',
    step: async (m: string) => {
      heard.push(m);
      const r = replies.shift();
      if (r instanceof Error) throw r;
      return r ?? '###STOP###';
    },
  };
}

describe('TauEpisode', () => {
  it('a tool call named "respond" goes to the user (as tau-bench does); the reward equals the grader on the messages', async () => {
    const task = loadTasks('retail')[0] as Record<string, unknown>;
    const user = scriptedUser(['###STOP###']);
    const ep = new TauEpisode({ domain: 'retail', task_index: 0 }, user);
    await ep.reset();
    const r = await ep.step({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'a', type: 'function', function: { name: 'respond', arguments: '{"content": "Anything else?"}' } }],
    });
    expect(user.heard).toEqual(['Anything else?']);
    expect(r.done).toBe(true);
    const g = await grade(
      loadGrader({ type: 'tau_bench', domain: 'retail' }),
      { item: task, sample: { messages: ep.state().messages } },
      { services: new Services() },
    );
    expect(r.reward).toBe(g.score);
    expect(ep.state().credit).toHaveLength(1);
  });

  it('a failed user turn commits nothing; the episode can go on', async () => {
    const user = scriptedUser([new Error('user model down'), 'Fine.']);
    const ep = new TauEpisode({ domain: 'airline', task_index: 0 }, user);
    await ep.reset();
    await expect(ep.step({ name: 'respond', arguments: { content: 'Hello?' } })).rejects.toThrow('user model down');
    expect(ep.state().messages).toHaveLength(2);
    expect(ep.state().turns).toBe(0);
    const r = await ep.step({ name: 'respond', arguments: { content: 'Hello?' } });
    expect(r).toMatchObject({ observation: 'Fine.', done: false, reward: 0 });
    await expect(ep.reset()).rejects.toThrow(/already reset/);
  });
});
