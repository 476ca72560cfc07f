// One setting names the benchmark data folder ($ARBITER_DATA, src/io/data.ts): the families find
// their data under it, a family's own variable overrides it, a missing folder is one message naming
// the setting and the expected path, and `arbiter eval` looks an input up in it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DATA_ENV, DEFAULT_DATA_DIR, dataRoot, locateData, resolveDataPath } from '../../dist/io/data.js';
import { runCli, ROOT } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';

const tmp = mkdtempSync(join(tmpdir(), 'arbiter-data-'));
const before = process.env[DATA_ENV];
afterEach(() => {
  if (before === undefined) delete process.env[DATA_ENV];
  else process.env[DATA_ENV] = before;
  delete process.env.ARBITER_TEST_FAMILY_DIR;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const spec = { what: 'demo data', folder: 'demo', probe: 'a/b.json' };

describe('the data folder', () => {
  it('defaults to ../shared/data beside the project', () => {
    delete process.env[DATA_ENV];
    expect(DEFAULT_DATA_DIR).toBe(join(ROOT, '..', 'shared', 'data'));
    expect(dataRoot()).toBe(DEFAULT_DATA_DIR);
  });

  it('is $ARBITER_DATA when set, and a family finds its folder under it', () => {
    mkdirSync(join(tmp, 'demo', 'a'), { recursive: true });
    writeFileSync(join(tmp, 'demo', 'a', 'b.json'), '{}');
    process.env[DATA_ENV] = tmp;
    expect(dataRoot()).toBe(tmp);
    expect(locateData(spec)).toBe(join(tmp, 'demo'));
  });

  it('a missing folder is one error naming the setting and the expected path once', () => {
    process.env[DATA_ENV] = join(tmp, 'nowhere');
    class FamilyError extends Error {}
    let err: unknown;
    try {
      locateData(spec, (m) => new FamilyError(m));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FamilyError);
    const msg = (err as Error).message;
    const expected = join(tmp, 'nowhere', 'demo', 'a', 'b.json');
    expect(msg).toContain(`demo data not found: expected ${expected}`);
    expect(msg.split(expected)).toHaveLength(2); // the path appears once
    expect(msg).toContain(`$${DATA_ENV}=${join(tmp, 'nowhere')}`);
  });

  it("a family's own variable overrides $ARBITER_DATA and is the one the message names", () => {
    process.env[DATA_ENV] = tmp;
    process.env.ARBITER_TEST_FAMILY_DIR = join(tmp, 'elsewhere');
    const own = { ...spec, env: 'ARBITER_TEST_FAMILY_DIR' };
    expect(() => locateData(own)).toThrow(`expected ${join(tmp, 'elsewhere', 'a', 'b.json')} ($ARBITER_TEST_FAMILY_DIR=${join(tmp, 'elsewhere')};`);
    process.env.ARBITER_TEST_FAMILY_DIR = join(tmp, 'demo');
    expect(locateData(own)).toBe(join(tmp, 'demo'));
  });

  it('an input path is taken as given first, then inside the data folder', () => {
    process.env[DATA_ENV] = tmp;
    writeFileSync(join(tmp, 'here.json'), '{}');
    expect(resolveDataPath(join(tmp, 'here.json'))).toBe(join(tmp, 'here.json'));
    expect(resolveDataPath('demo/a/b.json')).toBe(join(tmp, 'demo', 'a', 'b.json'));
    expect(resolveDataPath('demo/a/none.json')).toBeUndefined();
    expect(resolveDataPath(join(tmp, 'none.json'))).toBeUndefined();
  });
});

describe('arbiter eval and the data folder', () => {
  const rel = 'llmbar/Natural/evaluators/GPT-4/Vanilla/result.json';
  const dataDir = dataPath(rel).slice(0, -rel.length - 1);

  it('reads an input named relative to $ARBITER_DATA', async () => {
    const r = await runCli(['eval', 'llmbar', rel], { cwd: tmp, env: { ...process.env, [DATA_ENV]: dataDir } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^LLMBar: llmbar\/Natural \(GPT-4\/Vanilla\)\n {2}Accuracy, average of orders: \d/);
  });

  it('an input found nowhere is exit 2 with both places and the setting named', async () => {
    const r = await runCli(['eval', 'llmbar', rel], { cwd: tmp, env: { ...process.env, [DATA_ENV]: join(tmp, 'nowhere') } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `arbiter: cannot read ${rel}: no such file here (${join(tmp, rel)}) or in the benchmark data folder (${join(tmp, 'nowhere', rel)}; $${DATA_ENV}=${join(tmp, 'nowhere')})\n`,
    );
  });
});
