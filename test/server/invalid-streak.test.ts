// A grader whose every recent grade is invalid (a config that reads a field the trainer does not
// send, a judge that is down) is loud: a process warning naming the grader, the error kind and the
// first error, at most once a minute per grader, and a streak gauge plus a warning counter in /metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CHECK, get, post, start, type Running } from './helpers.js';

let srv: Running;
const warnings: Error[] = [];
const onWarning = (w: Error) => {
  if ((w as Error & { code?: string }).code === 'ARBITER_ALL_INVALID') warnings.push(w);
};
beforeAll(async () => {
  process.on('warning', onWarning);
  srv = await start({ gsm8k: ANSWER_CHECK });
});
afterAll(async () => {
  process.off('warning', onWarning);
  await srv.close();
});

const metric = (text: string, line: RegExp) => {
  const m = text.split('\n').find((l) => line.test(l));
  return m === undefined ? undefined : Number(m.split(' ').pop());
};
// a warning is emitted on the next tick
const settle = () => new Promise((r) => setImmediate(r));

describe('all-invalid grades are loud', () => {
  it('15 invalid grades in a row warn nothing; the 16th warns once, naming grader, kind and error', async () => {
    await post(`${srv.url}/get_reward`, { grader: 'gsm8k', query: Array.from({ length: 15 }, () => 'A: 1') });
    await settle();
    expect(warnings).toHaveLength(0);
    let t = (await get(`${srv.url}/metrics`)).text;
    expect(metric(t, /^arbiter_grader_invalid_streak\{grader="gsm8k"\}/)).toBe(15);
    await post(`${srv.url}/get_reward`, { grader: 'gsm8k', query: ['A: 1', 'A: 1'] });
    await settle();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.name).toBe('ArbiterInvalidGrades');
    expect(warnings[0]!.message).toMatch(/^grader "gsm8k": the last 16 grades were all invalid \(template_error: missing variable \{\{item\.label\}\}/);
    t = (await get(`${srv.url}/metrics`)).text;
    expect(metric(t, /^arbiter_grader_invalid_streak\{grader="gsm8k"\}/)).toBe(17);
    expect(metric(t, /^arbiter_all_invalid_warnings_total\{grader="gsm8k",kind="template_error"\}/)).toBe(1);
    // rate-limited: more of the same within the minute warns no more
    await post(`${srv.url}/get_reward`, { grader: 'gsm8k', query: Array.from({ length: 20 }, () => 'A: 1') });
    await settle();
    expect(warnings).toHaveLength(1);
  });
  it('a valid grade ends the streak', async () => {
    await post(`${srv.url}/get_reward`, { grader: 'gsm8k', query: ['A: 1'], labels: ['1'] });
    const t = (await get(`${srv.url}/metrics`)).text;
    expect(metric(t, /^arbiter_grader_invalid_streak\{grader="gsm8k"\}/)).toBe(0);
  });
});
