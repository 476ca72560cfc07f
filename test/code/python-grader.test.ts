// The `python` grader type (OpenAI schema): grade(sample, item) -> float runs in the sandbox;
// exceptions and non-numeric returns are python_error, a hang is timeout.
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../dist/core/errors.js';
import { loadGrader, Services } from './helpers.js';

const services = new Services();
afterAll(() => services.close());
const grade = (source: string, output_text: string, item: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  loadGrader({ type: 'python', source, ...extra }).grade({ item, sample: { output_text } }, { services });

describe('python grader', () => {
  it('returns the float computed from sample and item', async () => {
    const src =
      'def grade(sample, item):\n    words = sample["output_text"].split()\n    return sum(w in item["keywords"] for w in words) / len(item["keywords"])';
    const r = await grade(src, 'apple pear plum', { keywords: ['apple', 'plum', 'kiwi', 'fig'] });
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0.5);
  });

  it('max_bytes bounds the JSON of sample + item alone, to the byte (the driver spec around them is not counted)', async () => {
    // {"output_text":"abc"} is 21 bytes, {} 2: 23 in all
    const src = 'def grade(sample, item):\n    return 1.0\n';
    expect(await grade(src, 'abc', {}, { max_bytes: 23 })).toMatchObject({ valid: true, score: 1 });
    expect(await grade(src, 'abc', {}, { max_bytes: 22 })).toMatchObject({
      valid: false,
      error: { kind: 'limit_exceeded', message: 'sample + item are 23 bytes of JSON, over max_bytes 22' },
    });
  });

  it('accepts ints, and grader prints do not interfere', async () => {
    const r = await grade('def grade(sample, item):\n    print("debug 1.0")\n    return 1', 'x');
    expect(r.score).toBe(1);
  });

  it('reports an exception as python_error with the traceback', async () => {
    const r = await grade('def grade(sample, item):\n    return item["missing"]', 'x');
    expect(r.valid).toBe(false);
    expect(r.error?.kind).toBe('python_error');
    expect(r.error?.message).toMatch(/KeyError: 'missing'/);
  });

  it('reports non-numeric returns as python_error', async () => {
    for (const ret of ['"0.5"', 'None', 'True', '[1]', 'float("nan")']) {
      const r = await grade(`def grade(sample, item):\n    return ${ret}`, 'x');
      expect(r.error?.kind, ret).toBe('python_error');
    }
  });

  it('reports syntax errors and a missing grade() as python_error', async () => {
    const r = await grade('def grade(sample, item)\n    return 1', 'x');
    expect(r.error?.kind).toBe('python_error');
    expect(r.error?.message).toMatch(/SyntaxError/);
    expect(() => loadGrader({ type: 'python', source: 'x = 1' })).toThrow(ConfigError);
  });

  it('reports a grade() that never returns as timeout', async () => {
    const r = await grade('def grade(sample, item):\n    while True: pass', 'x', {}, { limits: { time_ms: 500 } });
    expect(r.error?.kind).toBe('timeout');
  });

  it('runs in the sandbox: no network, no project files', async () => {
    const src =
      'import socket, os\ndef grade(sample, item):\n    try:\n        socket.create_connection(("1.1.1.1", 80), timeout=2)\n        return 1.0\n    except OSError:\n        pass\n    return 0.5 if not os.path.exists(item["path"]) else 1.0';
    const r = await grade(src, 'x', { path: process.cwd() + '/package.json' });
    expect(r.score).toBe(0.5);
  });
});
