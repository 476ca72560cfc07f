// Unit tests of tool-call parsing (chat-completion, JSON text, Python-style) and grader edge cases.
import { describe, expect, it } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';
import { extractCalls, parsePythonCalls, standardizeString } from '../../dist/graders/tool_call/index.js';

describe('parsing', () => {
  it('chat-completion tool_calls, messages and BFCL form', () => {
    const tc = [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"x": 1}' } }];
    expect(extractCalls(tc)).toEqual([{ name: 'f', args: { x: 1 } }]);
    expect(extractCalls({ role: 'assistant', tool_calls: tc })).toEqual([{ name: 'f', args: { x: 1 } }]);
    expect(extractCalls([{ f: { x: 1 } }])).toEqual([{ name: 'f', args: { x: 1 } }]);
    expect(() => extractCalls([{ type: 'function', function: { name: 'f', arguments: '{bad' } }])).toThrow(/not valid JSON/);
  });
  it('JSON and tagged text', () => {
    expect(extractCalls('```json\n{"name": "f", "arguments": {"x": "y"}}\n```')).toEqual([{ name: 'f', args: { x: 'y' } }]);
    expect(extractCalls('<tool_call>{"name": "f", "arguments": {}}</tool_call>\n<tool_call>{"name": "g", "arguments": {"a": [1]}}</tool_call>')).toEqual([
      { name: 'f', args: {} },
      { name: 'g', args: { a: [1] } },
    ]);
  });
  it('Python-style calls', () => {
    expect(parsePythonCalls("[math.f(a=1, b='x\\'y', c=[1, 2.5e3], d={'k': None}, e=(True, False)), g()]")).toEqual([
      { name: 'math.f', args: { a: 1, b: "x'y", c: [1, 2500], d: { k: null }, e: [true, false] } },
      { name: 'g', args: {} },
    ]);
    expect(() => parsePythonCalls('f(1)')).toThrow(/positional/);
    expect(() => parsePythonCalls('f(a=os.system("x"))')).toThrow();
    expect(() => parsePythonCalls('f(a=' + '['.repeat(100) + ')')).toThrow(/deep/);
  });
  it('BFCL string normalisation', () => {
    expect(standardizeString('New York, NY')).toBe('newyorkny');
    expect(standardizeString("it's_a-test")).toBe('it"satest');
  });
});

describe('grader', () => {
  const functions = [
    {
      name: 'get.weather',
      parameters: {
        type: 'dict',
        properties: { city: { type: 'string' }, days: { type: 'integer' }, unit: { type: 'string' }, temp: { type: 'float' } },
        required: ['city'],
      },
    },
  ];
  const reference = [{ 'get.weather': { city: ['San Francisco', 'SF'], days: [3, ''], unit: ['celsius', ''], temp: [2.0, ''] } }];
  const g = loadGrader({ type: 'tool_call', reference, functions });
  const call = (args: object, name = 'get_weather') => ({ output_tools: [{ type: 'function', function: { name, arguments: JSON.stringify(args) } }] });

  it('accepts normalised strings, dotted names written with _, omitted optional args, int for float', async () => {
    expect((await grade(g, { item: {}, ...call({ city: 'san francisco', temp: 2 }) })).score).toBe(1);
    expect((await grade(g, { item: {}, ...call({ city: 'S.F.' }, 'get.weather') })).score).toBe(1);
  });
  it('rejects with a reason naming the mismatch', async () => {
    const r = await grade(g, { item: {}, ...call({ city: 'SF', days: '3' }) });
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/incorrect type for parameter "days"/);
    const r2 = await grade(g, { item: {}, ...call({ city: 'SF', colour: 'red' }) });
    expect(r2.reason).toMatch(/unexpected parameter "colour"/);
  });
  it('prose instead of a call is a wrong answer, not an error', async () => {
    const r = await grade(g, { item: {}, output_text: 'The weather is nice.' });
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/wrong number of calls: expected 1, got 0/);
  });
  it('bad reference is bad_input; oversized input is a valid 0 naming the limit', async () => {
    const bad = loadGrader({ type: 'tool_call', reference: '{{item.gt}}' });
    const r = await grade(bad, { item: { gt: [{ a: 1, b: 2 }] }, output_text: 'f()' });
    expect(r.error!.kind).toBe('bad_input');
    const small = loadGrader({ type: 'tool_call', reference: [], max_chars: 5 });
    expect(await grade(small, { item: {}, output_text: 'f(a=123456)' })).toMatchObject({
      valid: true,
      score: 0,
      metadata: { response_fault: 'limit_exceeded' },
    });
  });
});
