// The batched score line path (issue 32): the chunk reader yields the same lines as a line-at-a-time
// split, the grading window keeps order, its bound and the abort contract, and the byte-buffer
// writer writes every record whole and in order, long and multi-byte ones included.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLines, Services } from '../../dist/index.js';
import { readRawLineBatches } from '../../dist/io/jsonl-reader.js';
import { JsonlWriter } from '../../dist/io/jsonl-writer.js';
import { scoreBatches } from '../../dist/io/score-stream.js';

/** A seeded generator (tests stay reproducible). */
function lcg(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

/** `bytes` cut into chunks of random sizes up to `most`. */
function cut(bytes: Buffer, rnd: (n: number) => number, most: number): Buffer[] {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + rnd(most);
    parts.push(bytes.subarray(i, i + n));
    i += n;
  }
  return parts;
}

describe('readRawLineBatches', () => {
  it('yields, over any chunking, the lines of a plain split: text, bytes and offsets (BOM, CRLF, multi-byte, empty lines)', async () => {
    const rnd = lcg(7);
    const pieces = ['a', 'é', '€', '🚀', ' ', '{"id":1}', '\r'];
    const lines: string[] = [];
    // about 200 KB: several 16 KB decode pieces per 64 KB chunk
    for (let i = 0; i < 6000; i++) lines.push(Array.from({ length: rnd(12) }, () => pieces[rnd(pieces.length)]).join(''));
    const text = `\ufeff${lines.join('\n')}\n`;
    const bytes = Buffer.from(text);
    // what every line must read as, from a plain split of the whole text
    const want: [number, string, number, number][] = [];
    let offset = 0;
    text
      .split('\n')
      .slice(0, -1)
      .forEach((l, i) => {
        const b = Buffer.byteLength(l);
        const body = i === 0 ? l.slice(1) : l;
        want.push([i + 1, body.endsWith('\r') ? body.slice(0, -1) : body, b, offset]);
        offset += b + 1;
      });
    for (const most of [64 * 1024, 1000, 7]) {
      const got: [number, string | undefined, number, number | undefined][] = [];
      let batches = 0;
      for await (const batch of readRawLineBatches(Readable.from(cut(bytes, rnd, most)))) {
        batches++;
        for (const l of batch) got.push([l.line, l.text, l.bytes, l.offset]);
      }
      expect(got).toEqual(want);
      expect(batches).toBeGreaterThan(1);
    }
  });

  it('reports an invalid byte in the middle of a large chunk at its line and offset; the lines around it are intact', async () => {
    const good = (i: number) => `{"id":${i},"output_text":"é ${'x'.repeat(i % 50)}"}`;
    const lines = Array.from({ length: 3000 }, (_, i) => Buffer.from(good(i)));
    lines[1500] = Buffer.concat([Buffer.from('{"id":"bad","output_text":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const bytes = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
    const out = [];
    for await (const l of readLines(Readable.from([bytes]))) out.push(l);
    expect(out).toHaveLength(3000);
    expect(out[1500]).toMatchObject({ line: 1501, invalidUtf8: 27, invalidByte: 0xc3 });
    expect(out[1500]!.text).toBeUndefined();
    expect(out[1500]!.offset).toBe(lines.slice(0, 1500).reduce((n, l) => n + l.length + 1, 0));
    expect(out[1499]!.text).toBe(good(1499));
    expect(out[1501]!.text).toBe(good(1501));
    expect(out[2999]!.text).toBe(good(2999));
  });
});

describe('scoreBatches', () => {
  const line = (i: number) => ({ line: i + 1, text: `{"id":${i},"item":{},"output_text":"${i}"}`, bytes: 0 });
  const batchesOf = (n: number, size: number) =>
    (async function* () {
      for (let i = 0; i < n; i += size) yield Array.from({ length: Math.min(size, n - i) }, (_, k) => line(i + k));
    })();
  const result = (score: number) => ({ score, valid: true, metadata: { grader: 'g', type: 'g', duration_ms: 0 } });

  it('keeps input order and fills, never overfills, its window of `concurrency` lines, whatever order grades finish in', async () => {
    const rnd = lcg(11);
    let inFlight = 0;
    let most = 0;
    // grades finish one per macrotask turn, the newest first or a random one, so the oldest (the
    // window's head) tends to finish last and the window fills up
    const waiting: (() => void)[] = [];
    let running = true;
    const tick = () => {
      if (waiting.length) waiting.splice(rnd(2) ? waiting.length - 1 : rnd(waiting.length), 1)[0]!();
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const g = {
      name: 'g',
      type: 'g',
      config: {},
      capabilities: [],
      grade: async (input: { id?: unknown }) => {
        most = Math.max(most, ++inFlight);
        await new Promise<void>((r) => waiting.push(r));
        inFlight--;
        return result(Number(input.id) % 2);
      },
    };
    const ids: unknown[] = [];
    try {
      for await (const recs of scoreBatches(g as never, batchesOf(1000, 97), { services: new Services() }, { concurrency: 8 }))
        ids.push(...recs.map((r) => r.id));
    } finally {
      running = false;
    }
    expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(most).toBe(8);
  });

  it('on abort: no further line is read, grades still running become interrupted timeout records, in order', async () => {
    const ac = new AbortController();
    let started = 0;
    // lines 0..2 grade at once; the others never finish
    const g = {
      name: 'g',
      type: 'g',
      config: {},
      capabilities: [],
      grade: (input: { id?: unknown }) => {
        started++;
        return Number(input.id) < 3 ? Promise.resolve(result(1)) : new Promise(() => {});
      },
    };
    const recs = [];
    for await (const b of scoreBatches(
      g as never,
      batchesOf(100, 10),
      { services: new Services(), signal: ac.signal },
      { concurrency: 5, signal: ac.signal },
    )) {
      recs.push(...b);
      if (recs.length >= 3) ac.abort('SIGINT');
    }
    // a window of 5: lines 0..4 started; 0..2 were yielded, then the abort: line 5 is never read
    expect(started).toBe(5);
    expect(recs.map((r) => r.id)).toEqual([0, 1, 2, 3, 4]);
    expect(recs.slice(0, 3).every((r) => r.valid)).toBe(true);
    expect(recs.slice(3).map((r) => [r.valid, r.error?.kind])).toEqual([
      [false, 'timeout'],
      [false, 'timeout'],
    ]);
    expect(recs[3]!.error!.message).toMatch(/^line 4: the run was interrupted/);
  });

  it('a grade that rejects (a broken grader) ends the run with its error instead of stalling it', async () => {
    const g = {
      name: 'g',
      type: 'g',
      config: {},
      capabilities: [],
      grade: (input: { id?: unknown }) => (input.id === 5 ? Promise.reject(new Error('grader bug')) : Promise.resolve(result(1))),
    };
    const run = async () => {
      for await (const _ of scoreBatches(g as never, batchesOf(20, 4), { services: new Services() }, { concurrency: 3 })) {
        // drain
      }
    };
    await expect(run()).rejects.toThrow('grader bug');
  });
});

describe('JsonlWriter', () => {
  it('writes every record whole and in order: records longer than its buffer, multi-byte text, raw ids', async () => {
    const { ID_JSON } = await import('../../dist/index.js');
    const sink = new PassThrough();
    const parts: Buffer[] = [];
    sink.on('data', (b: Buffer) => parts.push(b));
    const w = new JsonlWriter(sink, 1024, 0);
    const want: string[] = [];
    const rnd = lcg(3);
    for (let i = 0; i < 400; i++) {
      const reason = ['é', '🚀', 'a', '"'][i % 4]!.repeat(rnd(i % 50 === 0 ? 5000 : 200));
      const rec: Record<string | symbol, unknown> = { id: i, score: 1, reason };
      if (i % 7 === 0) rec[ID_JSON] = `${i}.0`;
      want.push(`{"id":${i % 7 === 0 ? `${i}.0` : i},"score":1,"reason":${JSON.stringify(reason)}}`);
      if (i % 3 === 0) await w.write(rec);
      else if (w.add(rec)) await w.flush();
    }
    await w.writeText('{"tail":true}\n');
    await w.close(true);
    expect(Buffer.concat(parts).toString('utf8')).toBe(want.join('\n') + '\n{"tail":true}\n');
  });
});
