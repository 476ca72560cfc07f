import { describe, expect, it } from 'vitest';
import { ConfigError, compileFormula, loadGrader, validateGrader } from '../../dist/index.js';

const sc = (extra: Record<string, unknown> = {}) => ({
  type: 'string_check',
  input: '{{sample.output_text}}',
  reference: '{{item.answer}}',
  operation: 'eq',
  ...extra,
});

describe('grader config validation', () => {
  it('accepts valid configs, graders as object or list', () => {
    expect(validateGrader(sc())).toEqual([]);
    expect(validateGrader({ type: 'multi', graders: { a: sc(), b: sc({ operation: 'ilike' }) }, calculate_output: '0.5*a+0.5*b' })).toEqual([]);
    expect(validateGrader({ type: 'multi', graders: [sc({ name: 'a' }), sc({ name: 'b' })], calculate_output: 'max(a, b)' })).toEqual([]);
  });
  it('names the field path and problem for every issue', () => {
    const issues = validateGrader({
      type: 'multi',
      graders: { a: sc({ operation: 'eqq' }), b: { type: 'string_check', input: 'x', operation: 'eq' }, c: { type: 'nope' } },
      calculate_output: 'a + b',
    });
    const byPath = Object.fromEntries(issues.map((i) => [i.path, i.message]));
    expect(byPath['graders.a.operation']).toMatch(/eq/);
    expect(byPath['graders.b.reference']).toMatch(/missing/);
    expect(byPath['graders.c.type']).toMatch(/unknown grader type "nope".*string_check/);
  });
  it('reports unknown fields (typos), missing type, non-object graders', () => {
    expect(validateGrader(sc({ refrence: 'x' }))[0]).toMatchObject({ path: 'refrence', message: expect.stringContaining('refrence') });
    expect(validateGrader({ input: 'x' })[0]!.path).toBe('type');
    expect(validateGrader([1, 2])[0]!.message).toMatch(/JSON object/);
  });
  it('checks formulas at load: syntax, disallowed functions, unknown variables', () => {
    const f = (calc: string) => validateGrader({ type: 'multi', graders: { a: sc(), b: sc() }, calculate_output: calc });
    expect(f('a +')[0]).toMatchObject({ path: 'calculate_output', message: expect.stringMatching(/cannot parse/) });
    expect(f('sin(a)')[0]!.message).toMatch(/"sin" is not allowed/);
    expect(f('a + c')[0]!.message).toMatch(/unknown variable.*c/);
    expect(f('a = 3')[0]!.message).toMatch(/not allowed/);
  });
  it('checks template syntax at load', () => {
    expect(validateGrader(sc({ input: '{{other.x}}' }))[0]).toMatchObject({ path: 'input', message: expect.stringMatching(/unknown namespace/) });
  });
  it('loadGrader throws a ConfigError whose message lists the issues', () => {
    expect(() => loadGrader(sc({ operation: 'x' }), { file: 'g.json' })).toThrow(ConfigError);
    expect(() => loadGrader(sc({ operation: 'x' }), { file: 'g.json' })).toThrow(/g\.json[\s\S]*operation/);
  });
});

describe('formulas', () => {
  it('evaluates the OpenAI operator and function set', () => {
    const env = { a: 0.5, b: 2 };
    expect(compileFormula('a + b * 2 - 1').evaluate(env)).toBe(3.5);
    expect(compileFormula('b ^ 3 / 4').evaluate(env)).toBe(2);
    expect(compileFormula('min(a, b) + max(a, b)').evaluate(env)).toBe(2.5);
    expect(compileFormula('abs(-a) + floor(1.7) + ceil(1.2)').evaluate(env)).toBe(3.5);
    expect(compileFormula('exp(0) + sqrt(b*8) + log(exp(2))').evaluate(env)).toBe(7);
    expect(compileFormula('-a').evaluate(env)).toBe(-0.5);
    expect(compileFormula('a >= 0.5 ? 1 : 0').evaluate(env)).toBe(1);
  });
});

describe('JSON error location', async () => {
  const { jsonErrorOffset } = await import('../../dist/config/json-locate.js');
  it('finds the offset of the first syntax error', () => {
    expect(jsonErrorOffset('{"a": 1}')).toBe(-1);
    expect(jsonErrorOffset('{"a": }')).toBe(6);
    expect(jsonErrorOffset('[1,2,]')).toBe(5);
    expect(jsonErrorOffset('{"a":1} x')).toBe(8);
    expect(jsonErrorOffset('{"a":"\\q"}')).toBe(7); // the bad escape letter
  });
});
