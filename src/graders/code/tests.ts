// Normalises the `tests` value of a code grader into the shape each format needs, rejecting
// malformed items as bad_input with a message naming what is wrong.
import { parseJsonExact } from '../../core/json.js';
import { GradeFailure } from '../../core/result.js';

export interface IoCase {
  input: string;
  output: string;
}

export interface CallCase {
  args: unknown[];
  kwargs?: Record<string, unknown>;
  expected: unknown;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function asList(tests: unknown, what: string): unknown[] {
  if (typeof tests === 'string') {
    try {
      const parsed: unknown = parseJsonExact(tests);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON
    }
  }
  if (!Array.isArray(tests))
    throw new GradeFailure('bad_input', `tests must be a list of ${what}, got ${typeof tests === 'string' ? 'a string' : typeof tests}`);
  return tests;
}

/** Assert statements: a list of strings, or one string with one statement per line. */
export function assertTests(tests: unknown): string[] {
  let list: unknown[];
  if (typeof tests === 'string') {
    try {
      const p: unknown = parseJsonExact(tests);
      list = Array.isArray(p) ? p : tests.split('\n').filter((l) => l.trim() !== '');
    } catch {
      list = tests.split('\n').filter((l) => l.trim() !== '');
    }
  } else list = asList(tests, 'assert statements');
  return list.map((t, i) => {
    if (typeof t !== 'string') throw new GradeFailure('bad_input', `tests[${i}] must be a string (an assert statement), got ${typeof t}`);
    return t;
  });
}

/** stdio cases: `{input, output}` objects (strings; numbers are converted). */
export function ioCases(tests: unknown): IoCase[] {
  return asList(tests, '{input, output} cases').map((c, i) => {
    if (!isObj(c)) throw new GradeFailure('bad_input', `tests[${i}] must be an object {input, output}`);
    const inp = c.input ?? '';
    const out = c.output ?? c.expected;
    if (out === undefined) throw new GradeFailure('bad_input', `tests[${i}] has no "output"`);
    const s = (x: unknown) => (typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'bigint' ? String(x) : undefined);
    if (s(inp) === undefined) throw new GradeFailure('bad_input', `tests[${i}].input must be a string`);
    if (s(out) === undefined) throw new GradeFailure('bad_input', `tests[${i}].output must be a string`);
    return { input: s(inp)!, output: s(out)! };
  });
}

/**
 * Function-call cases: `{args: [...], kwargs?: {...}, expected}` or `{input, output}` where an
 * array input is the argument list and anything else a single argument.
 */
export function callCases(tests: unknown): CallCase[] {
  return asList(tests, '{input, output} cases').map((c, i) => {
    if (!isObj(c)) throw new GradeFailure('bad_input', `tests[${i}] must be an object {input, output}`);
    const expected = 'expected' in c ? c.expected : c.output;
    if (!('expected' in c) && !('output' in c)) throw new GradeFailure('bad_input', `tests[${i}] has no "output" (or "expected")`);
    let args: unknown[];
    if (c.args !== undefined) {
      if (!Array.isArray(c.args)) throw new GradeFailure('bad_input', `tests[${i}].args must be an array`);
      args = c.args;
    } else args = Array.isArray(c.input) ? c.input : c.input === undefined ? [] : [c.input];
    if (c.kwargs !== undefined && !isObj(c.kwargs)) throw new GradeFailure('bad_input', `tests[${i}].kwargs must be an object`);
    return c.kwargs ? { args, kwargs: c.kwargs as Record<string, unknown>, expected } : { args, expected };
  });
}
