// The extraction layer (src/extract): reasoning stripping and masking, fenced blocks, JSON in text,
// boxes, answer markers and tool-call parsing, as the graders use them.
import { describe, expect, it } from 'vitest';
import {
  applyThink,
  extractCalls,
  fencedBlocks,
  findAnswerPhrase,
  findJsonObjects,
  jsonFenceBody,
  lastBoxes,
  maskReasoning,
  neverCloses,
  ParseError,
  parseJsonText,
  pickFencedBlock,
  readText,
  stripThink,
} from '../../dist/extract/index.js';

describe('reasoning blocks', () => {
  it('stripThink drops a leading block, a lone closing tag, and reports an unterminated one', () => {
    expect(stripThink('<think>draft 1</think>final 2')).toBe('final 2');
    expect(stripThink('  <reasoning>a</reasoning> b')).toBe(' b');
    expect(stripThink('prompt-side reasoning</think> answer')).toBe(' answer');
    expect(stripThink('<think>never closes')).toBeUndefined();
    expect(stripThink('no reasoning here')).toBe('no reasoning here');
  });

  it('applyThink strips only when asked', () => {
    expect(applyThink('<think>x</think>y', 'strip')).toBe('y');
    expect(applyThink('<think>x</think>y', 'keep')).toBe('<think>x</think>y');
    expect(applyThink('<think>x', 'strip')).toBeUndefined();
  });

  it('readText: think then source, what was read, and where a stripped text starts', () => {
    expect(readText('<think>x</think>ans', { think: 'strip', from: 'whole' })).toEqual({
      ok: true,
      text: 'ans',
      start: 16,
      changed: true,
      read: { think: 'stripped', from: 'whole', chars: 3 },
    });
    expect(readText('ans', { think: 'strip', from: 'whole' })).toMatchObject({ ok: true, changed: false, read: { think: 'none' } });
    expect(readText('<think>x</think>ans', { think: 'keep', from: 'whole' })).toMatchObject({
      ok: true,
      text: '<think>x</think>ans',
      changed: false,
      start: 0,
    });
    expect(readText('<think>x', { think: 'strip', from: 'whole' })).toEqual({ ok: false, read: { think: 'unclosed', from: 'whole' } });
    // fenced: the last block, after the reasoning (a fence inside it is not read); no fence: the whole text
    const f = readText('<think>```\nno\n```</think>a\n```\none\n```\n```\ntwo\n```', { think: 'strip', from: 'fenced' });
    expect(f).toMatchObject({ ok: true, text: 'two', start: undefined, read: { fence_found: true } });
    expect(readText('<think>```\nno\n```</think>plain', { think: 'strip', from: 'fenced' })).toMatchObject({ text: 'plain', read: { fence_found: false } });
    expect(neverCloses('no answer given')).toBe('the reasoning block never closes (extract.think: strip): no answer given');
  });

  it('maskReasoning blanks every block in place (same length, newlines kept)', () => {
    const text = 'a<think>x\ny</think>b<scratchpad>z';
    const m = maskReasoning(text);
    expect(m.text.length).toBe(text.length);
    expect(m.text.replace(/ /g, '')).toBe('a\nb');
    expect(m.unterminated).toBe(true);
    expect(m.hadReasoning).toBe(true);
  });
});

describe('fenced blocks', () => {
  const text = 'intro\n```python\nprint(1)\n```\n```\nplain\n```\n~~~js\nconsole.log(2)\n';
  it('finds closed and unterminated fences with their tags', () => {
    expect(fencedBlocks(text)).toEqual([
      { tag: 'python', body: 'print(1)' },
      { tag: '', body: 'plain' },
      { tag: 'js', body: 'console.log(2)' },
    ]);
  });
  it('picks the last wanted tag, else the last untagged block, else the last block', () => {
    expect(pickFencedBlock(text, (t) => t === 'python')?.body).toBe('print(1)');
    expect(pickFencedBlock(text, () => false)?.body).toBe('plain');
    expect(pickFencedBlock('```js\na\n```\n```cpp\nb\n```', () => false)?.body).toBe('b');
    expect(pickFencedBlock('no fence', () => true)).toBeUndefined();
  });
});

describe('JSON in text', () => {
  it('parseJsonText reads the whole text or the first json fence', () => {
    expect(parseJsonText('{"a":1}', 'whole')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonText('here:\n```json\n{"a":2}\n```', 'fenced')).toEqual({ ok: true, value: { a: 2 } });
    expect(parseJsonText('here:\n```json\n{"a":2}\n```', 'whole').ok).toBe(false);
    expect(jsonFenceBody('no fence')).toBeUndefined();
  });
  it('findJsonObjects finds the objects embedded in prose, skipping non-JSON braces', () => {
    const hits = findJsonObjects('set {x} then {"score": 7} and {"b": {"c": "}"}}');
    expect(hits.map((h) => h.value)).toEqual([{ score: 7 }, { b: { c: '}' } }]);
  });
});

describe('boxes and answer markers', () => {
  it('lastBoxes returns the last boxes with their spans, inner box over an outer one', () => {
    const t = 'so \\boxed{1} and \\fbox{2}, or \\boxed{\\boxed{3}}';
    expect(lastBoxes(t).map((b) => b.content)).toEqual(['1', '2', '3']);
    expect(lastBoxes('\\boxed{unclosed')).toEqual([]);
  });
  it('findAnswerPhrase finds the rightmost marker, strong for "final answer", in other languages with intl', () => {
    const t = 'The answer is 3. Final Answer: 4';
    const p = findAnswerPhrase(t, t.toLowerCase(), false)!;
    expect(t.slice(p.from)).toBe('4');
    expect(p.strong).toBe(true);
    const fr = 'Donc. Réponse : 12';
    expect(findAnswerPhrase(fr, fr.toLowerCase(), false)).toBeUndefined();
    expect(fr.slice(findAnswerPhrase(fr, fr.toLowerCase(), true)!.from)).toBe('12');
  });
});

describe('tool calls', () => {
  it('reads chat-completion tool_calls, tagged JSON and Python-style calls', () => {
    expect(extractCalls([{ type: 'function', function: { name: 'f', arguments: '{"a":1}' } }])).toEqual([{ name: 'f', args: { a: 1 } }]);
    expect(extractCalls('<tool_call>{"name":"g","arguments":{"b":2}}</tool_call>')).toEqual([{ name: 'g', args: { b: 2 } }]);
    expect(extractCalls("[h(c='x', d=[1, 2.5])]")).toEqual([{ name: 'h', args: { c: 'x', d: [1, 2.5] } }]);
    expect(() => extractCalls([{ function: { name: 'f', arguments: '{bad' } }])).toThrow(ParseError);
  });
});
