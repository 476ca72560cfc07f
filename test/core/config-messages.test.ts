// Config errors a person can act on: one error for a misspelt field, "did you mean" for fields,
// types and option values, file:line:column on field errors, and the keys an item does have when a
// template path is missing.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadGrader, loadGraderFile, Services, validateGrader } from '../../dist/index.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'arbiter-config-msg-'));
const sc = { type: 'string_check', input: '{{sample.output_text}}', operation: 'eq' };

describe('config messages', () => {
  it('a misspelt required field is one "unknown field" issue naming the field it resembles', () => {
    const issues = validateGrader({ ...sc, refrence: '{{item.answer}}' });
    expect(issues).toEqual([{ path: 'refrence', message: 'unknown field "refrence" (did you mean "reference"?)' }]);
  });
  it('an unknown optional field gets the closest declared field; a far-off one gets none', () => {
    const issues = validateGrader({ ...sc, reference: 'x', pass_treshold: 1, zzzzzzzz: 1 });
    expect(issues).toEqual([
      { path: 'pass_treshold', message: 'unknown field "pass_treshold" (did you mean "pass_threshold"?)' },
      { path: 'zzzzzzzz', message: 'unknown field "zzzzzzzz"' },
    ]);
  });
  it('nested nodes: the path is below the child and the enum value gets its closest option', () => {
    const issues = validateGrader({ type: 'multi', graders: { a: { ...sc, reference: 'y', operation: 'eqq' } }, calculate_output: 'a' });
    expect(issues).toEqual([{ path: 'graders.a.operation', message: '"eqq" is not one of "eq", "ne", "like", "ilike" (did you mean "eq"?)' }]);
  });
  it('an unknown type close to a known one is suggested, else all types are listed', () => {
    expect(validateGrader({ type: 'string_chek' })[0]!.message).toBe('unknown grader type "string_chek" (did you mean "string_check"?)');
    expect(validateGrader({ type: 'qqqqqqqqqq' })[0]!.message).toMatch(/known types: .*string_check/);
  });
  it('field errors from a file carry file:line:column (the key of an unknown field; the enclosing object of a missing one)', async () => {
    const file = join(dir, 'g.json');
    writeFileSync(
      file,
      '{\n  "type": "multi",\n  "graders": {\n    "a": {"type": "string_check", "input": "x", "reference": "y",\n          "operation": "eqq", "bogus": 1}\n  },\n  "calculate_output": "a"\n}\n',
    );
    const e = await loadGraderFile(file).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).issues).toEqual([
      { path: 'graders.a.operation', message: '"eqq" is not one of "eq", "ne", "like", "ilike" (did you mean "eq"?)', line: 5, column: 11 },
      { path: 'graders.a.bogus', message: 'unknown field "bogus"', line: 5, column: 31 },
    ]);
    expect((e as Error).message).toContain(`${file}:5:11: graders.a.operation:`);
    const missing = join(dir, 'm.json');
    writeFileSync(missing, '{"type": "multi",\n "graders": {"a": {"type": "string_check", "input": "x", "operation": "eq"}}, "calculate_output": "a"}');
    const r = await runCli(['validate', missing]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${missing}:2:19: graders.a.reference: required field is missing (expected string)`);
  });
  it('a missing template variable names the keys the item does have, or the closest one', async () => {
    const services = new Services();
    const g = loadGrader({ ...sc, reference: '{{item.answer}}' });
    const far = await g.grade({ item: { label: '42', question: 'q' }, sample: { output_text: '42' } }, { services });
    expect(far.error?.message).toBe('missing variable {{item.answer}}: no "answer" in item (its keys: "label", "question")');
    const near = await g.grade({ item: { answers: '42' }, sample: { output_text: '42' } }, { services });
    expect(near.error?.message).toBe('missing variable {{item.answer}}: no "answer" in item (did you mean "answers"?)');
    await services.close();
  });
});
