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
    expect(out).toEqual([
      [1, 'a€b'],
      [2, ''],
      [3, 'second line 数学'],
      [4, 'last'],
    ]);
  });

  it('drops the text of a line over the size cap but keeps counting lines', async () => {
    const out = [];
    for await (const l of readLines(chunks('short\n', 'x'.repeat(50), 'y'.repeat(50), '\nafter\n'), 64)) out.push([l.line, l.text, l.bytes]);
    expect(out).toEqual([
      [1, 'short', 5],
      [2, undefined, 100],
      [3, 'after', 5],
    ]);
  });
});

describe('scoreLines', () => {
  it('turns an oversized line into a bad_input result at its place', async () => {
    const g = loadGrader({ type: 'string_check', input: '{{sample.output_text}}', reference: 'a', operation: 'eq' });
    const big = JSON.stringify({ id: 'big', item: {}, output_text: 'z'.repeat(200) });
    const lines = readLines(chunks(`{"id":"x","item":{},"output_text":"a"}\n${big}\n{"item":{},"output_text":"b"}\n`), 100);
    const out = [];
    for await (const r of scoreLines(g, lines, { services: new Services() })) out.push(r);
    expect(out.map((r) => [r.id, r.score])).toEqual([
      ['x', 1],
      [2, null],
      [3, 0],
    ]);
    expect(out[1]!.error).toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/^line 2: line is \d+ bytes, over the size limit/) });
  });
});

describe('scoreLines with a shared signal', () => {
  it("many samples in flight listening on the run's signal raise no MaxListenersExceededWarning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const ac = new AbortController();
    let listening = 0;
    let release!: () => void;
    const allListening = new Promise<void>((r) => (release = r));
    const n = 40;
    // a grader that waits on the run's signal like a run queued for a sandbox slot does
    const g = {
      name: 'wait',
      type: 'wait',
      config: {},
      capabilities: [],
      grade: async (_input: unknown, ctx: { signal?: AbortSignal }) => {
        const onAbort = () => {};
        ctx.signal?.addEventListener('abort', onAbort, { once: true });
        if (++listening === n) release();
        await allListening;
        ctx.signal?.removeEventListener('abort', onAbort);
        return { score: 1, valid: true, metadata: { grader: 'wait', type: 'wait' } };
      },
    };
    const text = Array.from({ length: n }, (_, i) => `{"id":${i},"item":{},"output_text":"a"}\n`).join('');
    const out = [];
    for await (const r of scoreLines(
      g as never,
      readLines(chunks(text)),
      { services: new Services(), signal: ac.signal },
      { concurrency: n, signal: ac.signal },
    ))
      out.push(r);
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    process.off('warning', onWarning);
    expect(listening).toBe(n);
    expect(out).toHaveLength(n);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});

describe('bounded JSON and exact ids (library)', async () => {
  const { scanJson, findTooDeep, parseJsonBounded, stringifyRecord, ID_JSON, grade, gradeStream } = await import('../../dist/index.js');
  const { firstInvalidUtf8 } = await import('../../dist/io/jsonl-reader.js');
  const g = loadGrader({ type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.answer}}', operation: 'eq' });

  it('scanJson finds the first place nested too deep, with its path, in linear time', () => {
    const deep = '{"a":[{"b":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}]}';
    expect(scanJson(deep, { maxDepth: 5 }).tooDeep).toEqual({ path: 'a[0].b[0][0]', maxDepth: 5 });
    expect(scanJson('{"a":[[1]]}', { maxDepth: 3 }).tooDeep).toBeUndefined();
    expect(scanJson('{"a":[[[1]]]}', { maxDepth: 3 }).tooDeep?.path).toBe('a[0][0]');
    // brackets and quotes inside strings do not count
    expect(scanJson(JSON.stringify({ s: '[[[[{{{{\\"]]' }), { maxDepth: 1 }).tooDeep).toBeUndefined();
    expect(() => parseJsonBounded('[[[1]]]', 2)).toThrow(/nested deeper than 2 levels/);
    expect(parseJsonBounded('[[1]]', 2)).toEqual([[1]]);
  });

  it('scanJson captures raw ids at the requested levels, last duplicate last', () => {
    const s = scanJson('{"id": 1.50 ,"samples":[{"id":"\\u0041"},{"x":{"id":9}},{"\\u0069d":1e999}],"id":-0}', { idLevels: 3 });
    expect(s.ids).toEqual([
      { path: [], raw: '1.50' },
      { path: ['samples', 0], raw: '"\\u0041"' },
      { path: ['samples', 2], raw: '1e999' },
      { path: [], raw: '-0' },
    ]);
  });

  it('findTooDeep bounds already-parsed values without recursion; cycles and shared objects terminate', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(findTooDeep({ item: { answer: v } }, 64)).toMatch(/^item\.answer\[0\]/);
    const cyc: Record<string, unknown> = { a: 1 };
    cyc.self = cyc;
    expect(findTooDeep(cyc, 64)).toBeUndefined();
    let shared: unknown = {};
    for (let i = 0; i < 40; i++) shared = { l: shared, r: shared }; // 2^40 paths, 40 levels
    expect(findTooDeep(shared, 64)).toBeUndefined();
    expect(findTooDeep(shared, 20)).toMatch(/^[lr](\.[lr]){7}…$/); // 20 levels: too deep
  });

  it('grade() and gradeStream() refuse deep records as limit_exceeded (the library path)', async () => {
    let v: unknown = 'a';
    for (let i = 0; i < 5000; i++) v = [v];
    const r = await grade(g, { item: { answer: v }, output_text: 'a' }, { services: new Services() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'limit_exceeded', message: expect.stringMatching(/^item\.answer\[0\]/) } });
    const out = [];
    for await (const x of gradeStream(
      g,
      [
        { item: { answer: 'a' }, output_text: 'a' },
        { item: { answer: v }, output_text: 'a' },
      ],
      { services: new Services() },
    ))
      out.push(x.error?.kind ?? x.score);
    expect(out).toEqual([1, 'limit_exceeded']);
  });

  it('a deep JSON output_text used as {{sample.output_json}} is limit_exceeded, not internal_error', async () => {
    const j = loadGrader({ type: 'string_check', input: '{{sample.output_json}}', reference: 'x', operation: 'eq' });
    const r = await grade(j, { item: {}, output_text: '['.repeat(5000) + ']'.repeat(5000) }, { services: new Services() });
    expect(r.error).toMatchObject({ kind: 'limit_exceeded', message: expect.stringMatching(/^sample\.output_text parsed as output_json: \[0\]/) });
  });

  it('scoreLines keeps the raw id text; stringifyRecord writes it back', async () => {
    const out = [];
    for await (const r of scoreLines(
      g,
      readLines(chunks('{"id":12345678901234567891,"item":{"answer":"a"},"output_text":"a"}\n{"id":"x","item":{},"output_text":"a"}\n')),
      { services: new Services() },
    ))
      out.push(r);
    // biome-ignore lint/correctness/noPrecisionLoss: the point: the parsed value loses digits, the raw text keeps them
    expect(out[0]!.id).toBe(12345678901234567891); // the value, as JSON.parse reads it
    expect((out[0] as unknown as Record<symbol, unknown>)[ID_JSON]).toBe('12345678901234567891');
    expect(stringifyRecord(out[0]!)).toMatch(/^\{"id":12345678901234567891,"score":1,/);
    expect((out[1] as unknown as Record<symbol, unknown>)[ID_JSON]).toBeUndefined(); // plain ids need no splice
    expect(stringifyRecord(out[1]!)).toBe(JSON.stringify(out[1]));
  });

  it('firstInvalidUtf8 agrees with the platform validator on random and edge byte strings', async () => {
    const { isUtf8 } = await import('node:buffer');
    const edge = [
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe0, 0x9f, 0xbf],
      [0xf0, 0x8f, 0xbf, 0xbf],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x9a, 0x80],
      [0xef, 0xbb, 0xbf],
    ];
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    const cases = edge.map((e) => Uint8Array.from(e));
    for (let i = 0; i < 20_000; i++) cases.push(Uint8Array.from({ length: 1 + (rnd() % 6) }, () => (rnd() & 1 ? rnd() | 0x80 : rnd() & 0x7f)));
    for (const b of cases) {
      const at = firstInvalidUtf8(b);
      expect(at === -1, Buffer.from(b).toString('hex')).toBe(isUtf8(b));
      if (at >= 0) {
        expect(isUtf8(b.subarray(0, at)), Buffer.from(b).toString('hex')).toBe(true);
        // the text decoder also rejects from there on
        expect(() => new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(at))).toThrow();
      }
    }
  });
});

describe('jsonString (the writers’ quoting of a string)', async () => {
  const { jsonString } = await import('../../dist/core/json.js');
  it('writes every string exactly as JSON.stringify does', () => {
    const cases = [
      '',
      'plain ascii',
      'a "quote" and a \\ backslash',
      'line\nbreak\ttab\r\u0000\u001f\u007f',
      '\u2028\u2029 (JSON.stringify leaves these raw)',
      'é ü 日本 …',
      '\ud83d\ude00 a surrogate pair',
      'lone \ud800 high',
      'lone \udfff low',
      '\udfff\ud800 reversed pair',
    ];
    for (const s of cases) expect(jsonString(s)).toBe(JSON.stringify(s));
    // and every code unit alone
    for (let c = 0; c < 0x10000; c++) {
      const s = `a${String.fromCharCode(c)}b`;
      if (jsonString(s) !== JSON.stringify(s)) expect([c, jsonString(s)]).toEqual([c, JSON.stringify(s)]);
    }
  });
});
