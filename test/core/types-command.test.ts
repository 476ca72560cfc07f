// `arbiter types NAME`: one grader type's fields read from its schema (every field the schema accepts
// is listed, required ones marked, enums spelt out) and an example config that loads; an unknown
// name is exit 2 with "did you mean".
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listGraderTypes } from '../../dist/index.js';
import { runCli } from '../helpers/cli.js';

describe('arbiter types NAME', () => {
  it('lists the fields of string_check with the required ones and the enum, and an example from examples/', async () => {
    const r = await runCli(['types', 'string_check']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^string_check: /);
    expect(r.stdout).toMatch(/^ {2}operation +one of "eq", "ne", "like", "ilike" \(required\)$/m);
    expect(r.stdout).toMatch(/^ {2}extract\.think +one of "strip", "keep"$/m);
    expect(r.stdout).toMatch(/^ {2}name +string$/m);
    expect(r.stdout).toMatch(/^example \(examples\/[\w/.-]+\.json\):$/m);
  });

  it('for every registered type, the example it prints is a config arbiter validate accepts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-types-'));
    const files: string[] = [];
    for (const { type } of listGraderTypes()) {
      const r = await runCli(['types', type]);
      expect(r.code, `${type}: ${r.stderr}`).toBe(0);
      const json = r.stdout.slice(r.stdout.indexOf('\n{') + 1);
      const example = JSON.parse(json);
      expect(example.type).toBe(type);
      // a skeleton has placeholders, not a usable config: only examples taken from files must validate
      if (/^example \(examples\//m.test(r.stdout)) {
        const f = join(dir, `${type}.json`);
        writeFileSync(f, JSON.stringify(example));
        files.push(f);
      }
    }
    expect(files.length).toBeGreaterThan(10);
    const v = await runCli(['validate', ...files]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
  }, 120_000);

  it('an unknown type is exit 2 with did-you-mean', async () => {
    const r = await runCli(['types', 'strng_check']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown grader type "strng_check" (did you mean "string_check"?)');
  });
});
