import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadGrader, readLines, scoreLines, Services } from '../../dist/index.js';

const chunks = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p)));

describe('readLines', () => {
  it('splits across chunk boundaries, handles CRLF, multi-byte characters and a missing final newline', async () => {
    const text = 'a€b\r\n\nsecond line 数学\nlast';
    const bytes = Buffer.from(text);
    // split in the middle of the 3-byte euro sign and of the CRLF
    const parts = [bytes.subarray(0, 2), bytes.subarray(2, 5), bytes.subarray(5, 6), bytes.subarray(6)];
    const out = [];
    for await (const l of readLines(Readable.from(parts))) out.push([l.line, l.text]);
    expect(out).toEqual([[1, 'a€b'], [2, ''], [3, 'second line 数学'], [4, 'last']]);
  });

  it('drops the text of a line over the size cap but keeps counting lines', async () => {
    const out = [];
    for await (const l of readLines(chunks('short\n', 'x'.repeat(50), 'y'.repeat(50), '\nafter\n'), 64)) out.push([l.line, l.text, l.bytes]);
    expect(out).toEqual([[1, 'short', 5], [2, undefined, 100], [3, 'after', 5]]);
  });
});

describe('scoreLines', () => {
  it('turns an oversized line into a bad_input result at its place', async () => {
    const g = loadGrader({ type: 'string_check', input: '{{sample.output_text}}', reference: 'a', operation: 'eq' });
    const big = JSON.stringify({ id: 'big', item: {}, output_text: 'z'.repeat(200) });
    const lines = readLines(chunks(`{"id":"x","item":{},"output_text":"a"}\n${big}\n{"item":{},"output_text":"b"}\n`), 100);
    const out = [];
    for await (const r of scoreLines(g, lines, { services: new Services() })) out.push(r);
    expect(out.map((r) => [r.id, r.score])).toEqual([['x', 1], [2, null], [3, 0]]);
    expect(out[1]!.error).toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/^line 2: line is \d+ bytes, over the size limit/) });
  });
});

describe('progress line', async () => {
  const { vi } = await import('vitest');
  const { Progress } = await import('../../dist/io/progress.js');
  const { SummaryStats } = await import('../../dist/io/summary.js');
  it('draws bytes done, count, rate, invalid and mean on one rewritten line, and clears it', () => {
    const writes: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (writes.push(String(s)), true));
    try {
      const stats = new SummaryStats();
      stats.add({ score: 1, valid: true, metadata: { grader: 'g', type: 't', duration_ms: 0 } });
      stats.add({ score: null, valid: false, error: { kind: 'timeout', message: '' }, metadata: { grader: 'g', type: 't', duration_ms: 0 } });
      const p = new Progress(stats, 1000, true);
      p.tick(500);
      p.done();
      expect(writes[0]).toMatch(/^\r\[#{12}\.{12}\]  50\.0% 2 graded, \d+\/s, 1 invalid, mean 1\.000/);
      expect(writes[1]).toBe('\r\x1b[K');
      const quiet = new Progress(stats, 1000, false);
      quiet.tick(10);
      expect(writes).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
  });
});
