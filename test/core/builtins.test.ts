// The built-in grader types on demand (src/graders/builtins.ts): the table names exactly the types
// that graders/index.ts registers, each with the module that defines it; a command that loads a
// config file registers the types that config names and no others, every type when it names an
// unknown one (so the error lists them all), and builds composite configs whose children are of
// other families. Checked in fresh node processes (the registry is process-wide).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTINS } from '../../dist/graders/builtins.js';
import { listGraderTypes } from '../../dist/core/registry.js';
import '../../dist/graders/index.js';

const DIST = new URL('../../dist/', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'arbiter-builtins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `body` (an async function body) in a fresh node process; returns what it printed as JSON. */
function fresh(body: string): unknown {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `const DIST = ${JSON.stringify(DIST)};\n${body}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function configFile(name: string, config: unknown): string {
  const f = join(dir, name);
  writeFileSync(f, JSON.stringify(config));
  return f;
}

const loadAndList = (file: string) =>
  fresh(`
const { loadGraderFile } = await import(DIST + 'config/load.js');
const { listGraderTypes } = await import(DIST + 'core/registry.js');
let error = null;
try { await loadGraderFile(${JSON.stringify(file)}); } catch (e) { error = e.message; }
console.log(JSON.stringify({ types: listGraderTypes().map((t) => t.type), error }));
`) as { types: string[]; error: string | null };

describe('built-in grader types on demand', () => {
  it('the table lists exactly the types graders/index.ts registers, each at the module and export that define it', async () => {
    const registered = listGraderTypes().map((t) => t.type);
    expect(Object.keys(BUILTINS).sort()).toEqual([...registered].sort());
    for (const [type, [module, exportName]] of Object.entries(BUILTINS)) {
      const m = (await import(new URL(module, `${DIST}graders/`).href)) as Record<string, { type?: string }>;
      expect(m[exportName]?.type, `${type}: ${module} ${exportName}`).toBe(type);
    }
  });

  it('a config file of one type registers that type only', () => {
    const out = loadAndList(configFile('code.json', { type: 'code', format: 'stdio', tests: [] }));
    expect(out).toEqual({ types: ['code'], error: null });
  });

  it("a composite config registers its children's types, at any depth", () => {
    const cfg = {
      type: 'weighted_sum',
      graders: {
        acc: { type: 'math', reference: '{{item.answer}}' },
        fmt: { type: 'gate', gate: { type: 'format', check: 'regex', pattern: 'x' }, then: { type: 'length', target: 10 } },
      },
    };
    const out = loadAndList(configFile('composite.json', cfg));
    expect(out.error).toBeNull();
    expect(out.types).toEqual(['format', 'gate', 'length', 'math', 'weighted_sum']);
  });

  it('an unknown type loads every built-in type, and the error lists them', () => {
    const out = loadAndList(configFile('unknown.json', { type: 'weighted_sum', graders: { a: { type: 'no_such_type' } } }));
    expect(out.types).toEqual(Object.keys(BUILTINS).sort());
    expect(out.error).toMatch(/unknown grader type "no_such_type" \(known types: bfcl_multi_turn, code, /);
  });
});

describe('the command line', () => {
  const CLI = new URL('../../dist/cli/main.js', import.meta.url).pathname;
  it('a reader that closes early (`arbiter types | head -1`) ends it quietly, exit 0', async () => {
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${CLI}" types | head -1`], { encoding: 'utf8' });
    expect(r.stdout).toBe('grader types:\n');
    expect(r.stderr).toBe('');
    // the same, with the exit status: the reader closes the pipe after the first line
    const c = spawn(process.execPath, [CLI, 'types'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    c.stderr.on('data', (b) => (err += b));
    c.stdout.once('data', () => c.stdout.destroy());
    const [code] = (await once(c, 'close')) as [number | null];
    expect({ code, err }).toEqual({ code: 0, err: '' });
  });

  it('help lists every command; a command alone still has its own help', () => {
    const all = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    for (const c of ['score', 'validate', 'types', 'serve', 'worker', 'advantages', 'monitor', 'eval', 'report', 'search', 'env', 'sandbox'])
      expect(all.stdout, c).toMatch(new RegExp(`\\n  ${c}\\b`));
    const one = spawnSync(process.execPath, [CLI, 'score', '--help'], { encoding: 'utf8' });
    expect(one.status).toBe(0);
    expect(one.stdout).toMatch(/Usage: arbiter score/);
  });
});
