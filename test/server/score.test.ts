// Batch scoring: POST /v1/score keeps input order, gives every sample exactly one result, and
// matches the library's `grade` on the same grader and data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';
import { ANSWER_CHECK, endsWithAnswer, gsm8k, post, start, type Running } from './helpers.js';

let srv: Running;

beforeAll(async () => {
  srv = await start(
    { answer_check: ANSWER_CHECK, exact: { type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.label}}', operation: 'eq' } },
    { maxBatch: 1000 },
  );
});
afterAll(() => srv.close());

describe('/v1/score', () => {
  it('grades 1000 real GSM8K solutions in order, matching the library', async () => {
    const data = gsm8k(1000);
    const samples = data.map((d, i) => ({ id: `q${i}`, item: { label: d.label }, sample: { output_text: d.solution } }));
    const r = await post(`${srv.url}/v1/score`, { samples });
    expect(r.status).toBe(200);
    expect(r.body.grader).toBe('answer_check');
    expect(r.body.results.map((x: { id: string }) => x.id)).toEqual(samples.map((s) => s.id));
    expect(r.body.results.map((x: { score: number }) => x.score)).toEqual(data.map((d) => (endsWithAnswer(d.solution, d.label) ? 1 : 0)));
    const g = loadGrader(ANSWER_CHECK);
    const lib = await Promise.all(samples.slice(0, 50).map((s) => grade(g, s)));
    expect(r.body.results.slice(0, 50).map((x: { score: number }) => x.score)).toEqual(lib.map((x) => x.score));
    const valid = r.body.results.filter((x: { valid: boolean }) => x.valid).length;
    expect(r.body.summary).toMatchObject({ count: 1000, valid, invalid: 1000 - valid });
  });

  it('turns malformed samples into bad_input results at their position', async () => {
    const r = await post(`${srv.url}/v1/score`, {
      grader: 'exact',
      samples: [
        { id: 'a', item: { label: '1' }, output_text: '1' },
        null,
        { id: 'c', item: 'x', sample: { output_text: '1' } },
        { id: 7, item: { label: '2' }, sample: { output_text: 3 } },
        { item: {} },
      ],
    });
    expect(r.status).toBe(200);
    const res = r.body.results;
    expect(res.map((x: { id: unknown }) => x.id)).toEqual(['a', 1, 'c', 7, 4]);
    expect(res.map((x: { valid: boolean }) => x.valid)).toEqual([true, false, false, false, false]);
    expect(res[1].error).toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/^samples\[1\]: record must be a JSON object/) });
    expect(res[2].error.message).toMatch(/"item" must be an object/);
    expect(res[3].error.message).toMatch(/sample\.output_text/);
    expect(r.body.summary.error_kinds).toEqual({ bad_input: 4 });
  });

  it('answers 404 for an unknown grader, 400 without samples, 413 over max batch', async () => {
    const a = await post(`${srv.url}/v1/score`, { grader: 'nope', samples: [] });
    expect(a.status).toBe(404);
    expect(a.body.error.code).toBe('unknown_grader');
    const b = await post(`${srv.url}/v1/score`, { samples: {} });
    expect(b.status).toBe(400);
    const c = await post(`${srv.url}/v1/score`, { samples: new Array(1001).fill({ item: {}, output_text: 'x' }) });
    expect(c.status).toBe(413);
    expect(c.body.error.code).toBe('batch_too_large');
    const d = await post(`${srv.url}/v1/score`, { grader: 5, samples: [] });
    expect(d.status).toBe(400);
  });

  it('returns an empty batch as empty results', async () => {
    const r = await post(`${srv.url}/v1/score`, { samples: [] });
    expect(r.body.results).toEqual([]);
    expect(r.body.summary.count).toBe(0);
  });
});
