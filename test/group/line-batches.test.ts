// readLineBatches (the batched JSONL reader `arbiter advantages` uses) yields exactly the lines of
// readLines, whatever the chunking: multi-byte characters and CRLF split across chunks, a final
// line without a newline, and oversized lines reported with their size.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLineBatches, readLines } from '../../dist/io/jsonl-reader.js';

async function viaLines(chunks: Buffer[], max?: number) {
  const out: [number, string | undefined, number][] = [];
  for await (const l of readLines(Readable.from(chunks), max)) out.push([l.line, l.text, l.text === undefined ? l.bytes : 0]);
  return out;
}
async function viaBatches(chunks: Buffer[], max?: number) {
  const out: [number, string | undefined, number][] = [];
  for await (const b of readLineBatches(Readable.from(chunks), max))
    b.texts.forEach((t, i) => out.push([b.first + i, t, t === undefined ? b.dropped!.get(i)! : 0]));
  return out;
}
function chunk(buf: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  let k = 0;
  while (i < buf.length) {
    const n = sizes[k++ % sizes.length]!;
    out.push(buf.subarray(i, i + n));
    i += n;
  }
  return out;
}

describe('readLineBatches', () => {
  const text = '{"a":"é日本"}\r\n\n{"b":1}\n' + 'x'.repeat(50) + '\n{"c":"🙂"}\r\n{"tail":true}';
  const buf = Buffer.from(text);
  it.each([[[1]], [[2, 3]], [[7]], [[5, 1, 9]], [[1000]]])('matches readLines with chunks of %j bytes', async (sizes) => {
    const chunks = chunk(buf, sizes);
    expect(await viaBatches(chunks)).toEqual(await viaLines(chunks));
    expect(await viaBatches(chunks, 20)).toEqual(await viaLines(chunks, 20));
  });
  it('gives the text of every line, CR stripped, and drops oversized lines with their size', async () => {
    const got = await viaBatches(chunk(buf, [3]), 20);
    expect(got.map((g) => g[1])).toEqual(['{"a":"é日本"}', '', '{"b":1}', undefined, '{"c":"🙂"}', '{"tail":true}']);
    expect(got[3]![2]).toBe(50);
  });
});
