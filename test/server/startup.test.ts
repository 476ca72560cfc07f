// The server starts what its graders need before it listens (core/startup.ts): the worker threads
// of cpu_heavy graders (requests grade under a deadline, so in those threads) and the tokenizer in
// each of them, reported by `warm()` and in `arbiter serve`'s start-up log; the first request then
// pays for none of it, whatever its timeout_ms.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadGrader, Services } from '../../dist/index.js';
import { createServer } from '../../dist/server/index.js';
import '../../dist/graders/index.js';
import { serve } from './serve-process.js';

const services = new Services({ preemptThreads: 1 });
afterAll(() => services.close());
const lengthCfg = { type: 'length', name: 'len', unit: 'tokens', budget: 100, timeout_ms: 2_000 };

describe('server start-up', () => {
  it('warm() starts the worker threads and their tokenizer before listening; requests then grade within budget', async () => {
    const server = createServer({ graders: { len: loadGrader(lengthCfg) }, services });
    try {
      const report = await server.warm();
      expect(report.items.map((i) => i.what)).toEqual(['1 worker thread', 'tokenizer o200k_base (in each worker thread)']);
      expect(services.has('workers:preempt')).toBe(true);
      const url = await server.listen({ port: 0 });
      expect(await server.warm()).toBe(report); // once: listen did not start anything again
      const res = await fetch(`${url}/v1/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ samples: Array.from({ length: 12 }, (_, i) => ({ id: i, item: {}, output_text: 'hello world' })) }),
      });
      const body = (await res.json()) as { results: { valid: boolean; metadata: { length: number } }[] };
      expect(body.results.map((r) => r.valid && r.metadata.length)).toEqual(Array(12).fill(2));
    } finally {
      await server.close();
    }
  });

  it('arbiter serve prints the start-up before "listening on"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-serve-startup-'));
    const file = join(dir, 'len.json');
    writeFileSync(file, JSON.stringify(lengthCfg));
    const s = await serve(['--grader', file]);
    try {
      const err = s.stderr();
      expect(err).toMatch(
        /^arbiter serve: start-up of the graders: \d+ ms \(\d+ worker threads? \d+ ms; tokenizer o200k_base \(in each worker thread\) \d+ ms\); not counted in any timeout_ms$/m,
      );
      expect(err.indexOf('start-up')).toBeLessThan(err.indexOf('listening on'));
    } finally {
      await s.stop();
    }
  });
});
