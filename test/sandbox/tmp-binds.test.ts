// A toolchain directory under /tmp (arbiter checked out or installed there, and so its typescript
// package) is bound after the run's tmpfs /tmp, which would otherwise hide it: TypeScript still
// transpiles and runs. In a fresh process (runtimes are resolved once per process), with
// ARBITER_TYPESCRIPT naming a copy of the package under the temporary directory.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../dist/sandbox/bwrap-args.js';
import { DEFAULT_LIMITS } from '../../dist/sandbox/limits.js';

const dir = mkdtempSync('/tmp/arbiter-tmp-binds-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('binds under /tmp', () => {
  it('come after the tmpfs /tmp in the bubblewrap arguments; others before it', () => {
    const a = bwrapArgs({
      bwrap: '/usr/bin/bwrap',
      prlimit: '',
      binds: ['/opt/tool', '/tmp/x/y'],
      files: [],
      limits: DEFAULT_LIMITS,
      env: {},
      argv: ['/bin/true'],
      statusFd: 3,
      firstFileFd: 7,
    });
    const tmpfs = a.indexOf('--tmpfs');
    expect(a[tmpfs + 1]).toBe('/tmp');
    const at = (b: string) => a.findIndex((x, i) => x === '--ro-bind' && a[i + 1] === b);
    expect(at('/opt/tool')).toBeGreaterThan(-1);
    expect(at('/opt/tool')).toBeLessThan(tmpfs);
    expect(at('/tmp/x/y')).toBeGreaterThan(tmpfs);
  });

  it('a typescript package under /tmp transpiles and runs a program', () => {
    const ts = join(dir, 'node_modules', 'typescript');
    cpSync(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), ts, { recursive: true });
    const script = `
const { compileProgram, runProgram, SandboxPool } = await import(${JSON.stringify(new URL('../../dist/sandbox/index.js', import.meta.url).href)});
const pool = new SandboxPool({ concurrency: 1 });
const c = await compileProgram(pool, 'typescript', 'const n: number = 6 * 7;\\nconsole.log(n);\\n');
const r = c.ok ? await runProgram(pool, c.program) : { status: 'compile', stdout: c.message };
pool.close();
console.log(JSON.stringify({ status: r.status, stdout: r.stdout }));
`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, ARBITER_TYPESCRIPT: ts } });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({ status: 'ok', stdout: '42\n' });
  });
});
