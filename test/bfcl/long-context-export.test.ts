// src/envs/bfcl_multi_turn/apis/long-context-export.py (standard-library Python, copied into dist/ by the build) exports long_context.py's constants from a
// BFCL checkout; arbiter reads the export back with Python's types: floats stay floats, Python's
// Ellipsis (which ends BFCL's WATCH_LIST_EXTENSION) survives. Run on a made-up module, not BFCL's.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LONG_CONTEXT_KEYS, loadLongContext, pyRepr } from '../../dist/envs/bfcl_multi_turn/apis/index.js';

const script = fileURLToPath(new URL('../../dist/envs/bfcl_multi_turn/apis/long-context-export.py', import.meta.url));

describe('long-context export', () => {
  it('exports every constant from a checkout layout, and arbiter reads it with Python types', () => {
    const root = mkdtempSync(join(tmpdir(), 'arbiter-lc-'));
    const dir = join(root, 'berkeley-function-call-leaderboard', 'bfcl_eval', 'eval_checker', 'multi_turn_eval', 'func_source_code');
    mkdirSync(dir, { recursive: true });
    const body = LONG_CONTEXT_KEYS.map((k) => `${k} = ${k === 'WATCH_LIST_EXTENSION' ? "['A', ...]" : k === 'MA_5_EXTENSION' ? '[1.0, 2]' : "'x'"}`).join('\n');
    writeFileSync(join(dir, 'long_context.py'), `${body}\n`);
    const json = execFileSync('python3', [script, root], { encoding: 'utf8' });
    const out = join(root, 'lc.json');
    writeFileSync(out, json);
    const data = loadLongContext(out);
    expect(Object.keys(data.values).sort()).toEqual([...LONG_CONTEXT_KEYS].sort());
    expect(pyRepr(data.values.WATCH_LIST_EXTENSION!)).toBe("['A', Ellipsis]");
    expect(pyRepr(data.values.MA_5_EXTENSION!)).toBe('[1.0, 2]');
  });

  it('a module without a constant is refused by the script', () => {
    const root = mkdtempSync(join(tmpdir(), 'arbiter-lc-'));
    writeFileSync(join(root, 'long_context.py'), "FILES_TAIL_USED = ['log.txt']\n");
    expect(() => execFileSync('python3', [script, join(root, 'long_context.py')], { encoding: 'utf8', stdio: 'pipe' })).toThrow(/lacks AUTOMOBILE_EXTENSION/);
  });
});
