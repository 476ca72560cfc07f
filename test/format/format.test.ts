// The format grader: regex on the RE2 engine (search/full/negate, unsupported syntax refused), tag structure
// (<think>/<answer> counts, order, nesting, outside text, partial scoring), JSON and JSON Schema,
// limits; realistic runs on IFEval's JSON-format prompts and GSM8K solutions.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { grade, loadGrader, validateGrader } from '../../dist/index.js';
import { dataPath } from '../helpers/data.js';

const data = dataPath;
const jsonl = (p: string) =>
  readFileSync(data(p), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const score = async (cfg: object, output_text: string) => (await grade(loadGrader(cfg), { item: {}, output_text })).score;

describe('format: regex', () => {
  it('search finds the pattern anywhere; full needs the whole input to match', async () => {
    const boxed = { type: 'format', check: 'regex', pattern: '\\\\boxed\\{[^}]+\\}' };
    expect(await score(boxed, 'so the answer is \\boxed{42}.')).toBe(1);
    expect(await score(boxed, 'the answer is 42')).toBe(0);
    const full = { type: 'format', check: 'regex', pattern: '\\d+', match: 'full' };
    expect(await score(full, '12345')).toBe(1);
    expect(await score(full, '123a')).toBe(0);
    // the m flag must not let "full" match a single line
    expect(await score({ ...full, flags: 'm' }, '12\nab')).toBe(0);
  });
  it('negate scores 1 when the pattern is absent; flags apply', async () => {
    const cfg = { type: 'format', check: 'regex', pattern: 'as an ai', flags: 'i', negate: true };
    expect(await score(cfg, 'As an AI language model, I cannot')).toBe(0);
    expect(await score(cfg, 'Sure, here it is')).toBe(1);
  });
  it('extract: keep (default) matches the whole input; strip the answer after the reasoning; fenced the last block', async () => {
    const out = '<think>draft</think>Final: 42';
    expect((await grade(loadGrader({ type: 'format', check: 'regex', pattern: '^Final' }), { item: {}, output_text: out })).score).toBe(0);
    const strip = loadGrader({ type: 'format', check: 'regex', pattern: '^Final', extract: { think: 'strip' } });
    expect(await grade(strip, { item: {}, output_text: out })).toMatchObject({ score: 1, metadata: { extracted: { think: 'stripped' } } });
    // never closes: 0, for negate too (no answer is not "the pattern is absent")
    const neg = loadGrader({ type: 'format', check: 'regex', pattern: 'x', negate: true, extract: { think: 'strip' } });
    expect(await grade(neg, { item: {}, output_text: '<think>draft' })).toMatchObject({ valid: true, score: 0, reason: expect.stringMatching(/never closes/) });
    const fenced = loadGrader({ type: 'format', check: 'regex', pattern: '^\\d+$', match: 'full', extract: { from: 'fenced' } });
    expect((await grade(fenced, { item: {}, output_text: 'It is:\n```\n42\n```' })).score).toBe(1);
    // tags check the structure, reasoning tags included: no extract there
    expect(validateGrader({ type: 'format', check: 'tags', tags: ['think'], extract: { think: 'strip' } }).map((i) => i.path)).toEqual(['extract']);
  });
  it('refuses invalid patterns and what RE2 cannot run (backreferences, lookaround) at load time, naming the field', () => {
    const issue = (pattern: string, extra = {}) => validateGrader({ type: 'format', check: 'regex', pattern, ...extra })[0];
    expect(issue('(')).toMatchObject({ path: 'pattern', message: expect.stringMatching(/missing closing \)/) });
    expect(issue('(a)\\1')!.message).toMatch(/backreference "\\1".*no backreferences/);
    expect(issue('(?<x>a)\\k<x>')!.message).toMatch(/named backreference/);
    expect(issue('a(?=b)')!.message).toMatch(/lookahead "\(\?=" at 1.*no lookaround/);
    expect(issue('(?<!a)b')!.message).toMatch(/lookbehind "\(\?<!"/);
    expect(issue('a{1001}')!.message).toMatch(/invalid repeat count/);
    // JavaScript reads these as plain letters, RE2 as anchors/quoting: refused, never reinterpreted
    expect(issue('end\\z')!.message).toMatch(/means a plain "z" in JavaScript/);
    expect(issue('\\Qa.b\\E')!.message).toMatch(/plain "Q"/);
    expect(issue('\\x4')!.message).toMatch(/two hex digits/);
    // nested quantifiers are harmless on a linear-time engine, so they are accepted now
    expect(validateGrader({ type: 'format', check: 'regex', pattern: '^(\\w+\\s?)*$' })).toEqual([]);
    expect(validateGrader({ type: 'format', check: 'regex', pattern: '^(?:ab|cd){2}\\d+$' })).toEqual([]);
    expect(issue('x', { allow_unsafe_regex: true })).toMatchObject({ path: 'allow_unsafe_regex', message: expect.stringMatching(/no longer needed/) });
    expect(validateGrader({ type: 'format', check: 'regex', pattern: 'x', allow_unsafe_regex: false })).toEqual([]);
    expect(issue('x', { flags: 'g' })!.path).toBe('flags');
  });
  it('keeps JavaScript meanings where RE2 differs: \\s, \\S and . , \\u escapes, [^] and [], named groups', async () => {
    const m = async (pattern: string, text: string, extra = {}) => score({ type: 'format', check: 'regex', pattern, match: 'full', ...extra }, text);
    expect(await m('a\\sb', 'a\u00a0b')).toBe(1); // NBSP is \s in JavaScript, not in RE2
    expect(await m('a\\sb', 'a\u3000b')).toBe(1);
    expect(await m('a\\Sb', 'a\u00a0b')).toBe(0);
    expect(await m('a[\\S]b', 'a\u2028b')).toBe(0);
    expect(await m('a[\\s\\S]b', 'a\u2028b')).toBe(1);
    expect(await m('a.b', 'a\rb')).toBe(0); // . stops at \r, U+2028, U+2029 as in JavaScript
    expect(await m('a.b', 'a\u2029b')).toBe(0);
    expect(await m('a.b', 'a\rb', { flags: 's' })).toBe(1);
    expect(await m('\\u00e9+', 'ééé')).toBe(1);
    expect(await m('\\u{1F600}', '😀', { flags: 'u' })).toBe(1);
    expect(await m('[^]*', 'x\ny')).toBe(1);
    expect(await m('a[]', 'a')).toBe(0);
    expect(await m('(?<year>\\d{4})-\\d\\d', '2024-05')).toBe(1);
    // a literal [ in a class, not a POSIX class: "[[:alpha:]" is a class, then "]+"
    expect(await m('[[:alpha:]]+', 'a]]')).toBe(1);
    expect(await m('[[:alpha:]]+', 'x')).toBe(0);
    expect(await m('x$', 'x\n')).toBe(0); // $ is the end of input without m
    expect(await score({ type: 'format', check: 'regex', pattern: '^b$', flags: 'm' }, 'a\nb\nc')).toBe(1);
    expect(await score({ type: 'format', check: 'regex', pattern: 'AS AN AI', flags: 'i' }, 'as an ai model')).toBe(1);
  });
  it('GSM8K solutions: every solution ending in "A: <number>" passes a full-match answer-line format', async () => {
    const rows = jsonl('gsm8k/example_model_solutions.jsonl').slice(0, 300);
    const cfg = { type: 'format', check: 'regex', pattern: '[\\s\\S]*\\nA: -?[\\d,]*\\.?\\d+\\s*', match: 'full' };
    const g = loadGrader(cfg);
    let pass = 0;
    let expected = 0;
    for (const r of rows) {
      const text: string = r['175b_verification'].solution;
      if (/\nA: -?[\d,]*\.?\d+\s*$/.test(text)) expected++;
      if ((await grade(g, { item: {}, output_text: text })).score === 1) pass++;
    }
    expect(expected).toBeGreaterThan(250);
    expect(pass).toBe(expected);
  });
});

describe('format: tags', () => {
  const r1 = { type: 'format', check: 'tags', tags: ['think', 'answer'] };
  it('the DeepSeek-R1 format: <think>...</think> then <answer>...</answer>, nothing else', async () => {
    expect(await score(r1, '<think>\n2+2 is 4\n</think>\n<answer>4</answer>\n')).toBe(1);
    expect(await score(r1, '<answer>4</answer><think>x</think>')).toBe(0); // order
    expect(await score(r1, 'Sure! <think>x</think><answer>4</answer>')).toBe(0); // outside text
    expect(await score(r1, '<think>x</think><answer>4</answer><answer>5</answer>')).toBe(0); // count
    expect(await score(r1, '<think>x<answer>4</answer></think>')).toBe(0); // nested
    expect(await score(r1, '<think>x</think><answer>4')).toBe(0); // unclosed
    expect(await score(r1, '<think>x<answer></think>4</answer>')).toBe(0); // interleaved
  });
  it('the reason names each violation; scoring "fraction" gives partial credit', async () => {
    const g = loadGrader({ ...r1, scoring: 'fraction' });
    const r = await grade(g, { item: {}, output_text: 'Sure! <answer>4</answer><think>x</think>' });
    expect(r.reason).toMatch(/comes after <answer>/);
    expect(r.reason).toMatch(/text outside the tags at 0: "Sure!"/);
    // checks: well-formed, count think, count answer, order, not nested, nothing outside -> 4 of 6
    expect(r.score).toBeCloseTo(4 / 6, 12);
    expect(r.metadata.checks).toMatchObject({ order: false, 'nothing outside tags': false, 'well-formed': true });
  });
  it('counts: min/max per tag, repeated steps allowed in order; outside "any" and nested allowed when asked', async () => {
    const steps = { type: 'format', check: 'tags', tags: [{ name: 'step', min: 2, max: null }, 'answer'] };
    expect(await score(steps, '<step>a</step><step>b</step><step>c</step><answer>d</answer>')).toBe(1);
    expect(await score(steps, '<step>a</step><answer>d</answer>')).toBe(0);
    const loose = { type: 'format', check: 'tags', tags: ['answer'], outside: 'any' };
    expect(await score(loose, 'Reasoning here. <answer>7</answer> Done.')).toBe(1);
    const nest = { type: 'format', check: 'tags', tags: ['think', 'answer'], nested: true, order: false };
    expect(await score(nest, '<think>x<answer>4</answer></think>')).toBe(1);
  });
  it('config errors: max below min, duplicate tag, bad tag name', () => {
    expect(validateGrader({ type: 'format', check: 'tags', tags: [{ name: 'a', min: 3, max: 1 }] })[0]!.path).toBe('tags[0].max');
    expect(validateGrader({ type: 'format', check: 'tags', tags: ['a', 'a'] })[0]!.path).toBe('tags[1]');
    expect(validateGrader({ type: 'format', check: 'tags', tags: ['a b'] })[0]!.path).toMatch(/^tags\[0\]/);
    expect(validateGrader({ type: 'format', check: 'nope' })[0]!.path).toBe('check');
  });
});

describe('format: json', () => {
  const schema = {
    type: 'object',
    required: ['name', 'age'],
    properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 }, email: { type: 'string', format: 'email' } },
    additionalProperties: false,
  };
  it('valid JSON text; invalid JSON scores 0 with the parser message', async () => {
    const g = loadGrader({ type: 'format', check: 'json' });
    expect((await grade(g, { item: {}, output_text: ' {"a": [1, 2]} ' })).score).toBe(1);
    const bad = await grade(g, { item: {}, output_text: '{"a": [1, 2}' });
    expect(bad.valid).toBe(true);
    expect(bad.score).toBe(0);
    expect(bad.reason).toMatch(/not valid JSON/);
  });
  it('JSON Schema conformance with Ajv, formats included; reasons name the path', async () => {
    const g = loadGrader({ type: 'format', check: 'json', schema });
    expect((await grade(g, { item: {}, output_text: '{"name": "Ada", "age": 36, "email": "ada@example.org"}' })).score).toBe(1);
    const r = await grade(g, { item: {}, output_text: '{"name": "Ada", "age": -1, "email": "nope", "x": 1}' });
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/\/age must be >= 0/);
    expect(r.reason).toMatch(/\/email must match format "email"/);
    expect(r.reason).toMatch(/additional properties/);
  });
  it('uses sample.output_json when present (structured outputs), and a 2020-12 schema', async () => {
    const g = loadGrader({
      type: 'format',
      check: 'json',
      schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'number' }], items: false },
    });
    expect((await grade(g, { item: {}, sample: { output_json: [1] } })).score).toBe(1);
    expect((await grade(g, { item: {}, sample: { output_json: [1, 2] } })).score).toBe(0);
  });
  it('extract "fenced" reads a ```json block', async () => {
    const g = loadGrader({ type: 'format', check: 'json', extract: 'fenced', schema: { type: 'object', required: ['ok'] } });
    expect((await grade(g, { item: {}, output_text: 'Here:\n```json\n{"ok": true}\n```\n' })).score).toBe(1);
    expect((await grade(loadGrader({ type: 'format', check: 'json' }), { item: {}, output_text: '```json\n{"ok": true}\n```' })).score).toBe(0);
  });
  it("an invalid schema is a config error at load; hard limits on size and depth are the response's fault: a valid 0 naming the limit", async () => {
    expect(validateGrader({ type: 'format', check: 'json', schema: { type: 'no-such-type' } })[0]!.path).toBe('schema');
    const g = loadGrader({ type: 'format', check: 'json', max_chars: 1000, max_depth: 50 });
    const big = await grade(g, { item: {}, output_text: `[${'1,'.repeat(600)}1]` });
    expect(big).toMatchObject({ valid: true, score: 0, metadata: { response_fault: 'limit_exceeded' } });
    const deep = await grade(g, { item: {}, output_text: '['.repeat(60) + ']'.repeat(60) });
    expect(deep).toMatchObject({ valid: true, score: 0, metadata: { response_fault: 'limit_exceeded' } });
    expect(deep.reason).toMatch(/max_depth=50/);
  });
  it('IFEval json_format prompts: the fenced JSON check agrees with the reference verdicts', async () => {
    const inputs = jsonl('ifeval/input_data.jsonl');
    const responses = new Map(jsonl('ifeval/input_response_data_gpt4_20231107_145030.jsonl').map((r) => [r.prompt, r.response]));
    const verdicts = new Map(jsonl('ifeval/eval_results_strict.jsonl').map((r) => [r.prompt, r]));
    const g = loadGrader({ type: 'format', check: 'json', extract: 'fenced' });
    let n = 0;
    for (const it of inputs) {
      const idx = it.instruction_id_list.indexOf('detectable_format:json_format');
      const resp = responses.get(it.prompt);
      const v = verdicts.get(it.prompt);
      if (idx < 0 || resp === undefined || !v) continue;
      const r = await grade(g, { item: {}, output_text: resp });
      expect(r.score === 1, it.prompt.slice(0, 60)).toBe(v.follow_instruction_list[idx]);
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(15);
  });
});

describe('format: inputs', () => {
  it('a missing output_text is a template_error; a custom input template is used when given', async () => {
    const g = loadGrader({ type: 'format', check: 'regex', pattern: '^ok$' });
    expect((await grade(g, { item: {}, sample: { output_json: {} } })).error!.kind).toBe('template_error');
    const h = loadGrader({ type: 'format', check: 'regex', pattern: '^ok$', input: '{{sample.output_json.status}}' });
    expect((await grade(h, { item: {}, sample: { output_json: { status: 'ok' } } })).score).toBe(1);
  });
  it('oversized input is a valid 0 naming the limit (the response is at fault)', async () => {
    const g = loadGrader({ type: 'format', check: 'tags', tags: ['a'], max_chars: 10 });
    expect(await grade(g, { item: {}, output_text: 'x'.repeat(11) })).toMatchObject({ valid: true, score: 0, metadata: { response_fault: 'limit_exceeded' } });
  });
});
