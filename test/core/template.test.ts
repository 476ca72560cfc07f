import { describe, expect, it } from 'vitest';
import { compileTemplate, renderString, renderValue, GradeFailure } from '../../dist/index.js';

const input = {
  item: { answer: '42', list: [1, 2, { x: 'deep' }], n: 7, obj: { a: 1 }, 'with space': 'ok', zero: 0, empty: '' },
  sample: { output_text: '{"final": {"value": 3}}', output_tools: [{ function: { name: 'f' } }] },
};

describe('templates', () => {
  it('passes raw values through a single placeholder', () => {
    expect(renderValue(compileTemplate('{{item.list}}'), input)).toEqual([1, 2, { x: 'deep' }]);
    expect(renderValue(compileTemplate('{{ item.n }}'), input)).toBe(7);
    expect(renderValue(compileTemplate('{{item.obj}}'), input)).toEqual({ a: 1 });
    expect(renderValue(compileTemplate('{{sample.output_tools}}'), input)).toEqual([{ function: { name: 'f' } }]);
  });
  it('interpolates mixed templates as text, objects as JSON', () => {
    expect(renderString(compileTemplate('A={{item.answer}}, n={{item.n}}, o={{item.obj}}'), input)).toBe('A=42, n=7, o={"a":1}');
  });
  it('resolves indices, bracket keys, falsy values', () => {
    expect(renderValue(compileTemplate('{{item.list[2].x}}'), input)).toBe('deep');
    expect(renderValue(compileTemplate('{{item.list.0}}'), input)).toBe(1);
    expect(renderValue(compileTemplate('{{item["with space"]}}'), input)).toBe('ok');
    expect(renderValue(compileTemplate('{{item.zero}}'), input)).toBe(0);
    expect(renderValue(compileTemplate('{{item.empty}}'), input)).toBe('');
  });
  it('parses sample.output_json from output_text when absent', () => {
    expect(renderValue(compileTemplate('{{sample.output_json.final.value}}'), input)).toBe(3);
  });
  it('a missing variable is a template_error naming the variable, never an empty string', () => {
    const t = compileTemplate('x {{item.nope}} y');
    try {
      renderString(t, input);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(GradeFailure);
      expect((e as GradeFailure).kind).toBe('template_error');
      expect((e as Error).message).toContain('item.nope');
    }
    expect(() => renderValue(compileTemplate('{{item.list[9]}}'), input)).toThrow(/list\[9\]|no "9"/);
    expect(() => renderValue(compileTemplate('{{item.answer.x}}'), input)).toThrow(/not an object/);
    expect(() => renderValue(compileTemplate('{{sample.output_json.a}}'), { item: {}, sample: { output_text: 'not json' } })).toThrow(/output_json/);
  });
  it('rejects unknown namespaces and bad syntax at compile time', () => {
    expect(() => compileTemplate('{{foo.bar}}')).toThrow(/unknown namespace/);
    expect(() => compileTemplate('{{item.a[}}')).toThrow(/invalid index/);
  });
  it('refuses an unclosed placeholder at compile time, naming the place; single braces are literal text with a note', () => {
    expect(() => compileTemplate('Answer: {{item.answer')).toThrow(/unclosed "\{\{" at character 9/);
    expect(() => compileTemplate('{{item.a}} and {{ sample.output_text')).toThrow(/unclosed "\{\{" at character 16/);
    const notes: string[] = [];
    const single = compileTemplate('gold {item.answer} here', notes);
    expect(renderString(single, input)).toBe('gold {item.answer} here');
    expect(notes).toEqual(['"{item.answer}" has single braces, so it is literal text, never substituted (write {{item.answer}} for the value)']);
    // literal double braces that open no placeholder (code) stay literal text, with no note
    const code = compileTemplate('m = {{1,2},{3,4}}; json {"k": {"v": 1}} {x} {{item.answer}}', notes);
    expect(renderString(code, input)).toBe('m = {{1,2},{3,4}}; json {"k": {"v": 1}} {x} 42');
    expect(notes).toHaveLength(1);
  });
  it('keeps Unicode intact', () => {
    const u = { item: { a: 'naïve — 数学 🚀' }, sample: { output_text: 'ok' } };
    expect(renderString(compileTemplate('«{{item.a}}»'), u)).toBe('«naïve — 数学 🚀»');
  });
});
