// The one list of built-in grader types (src/graders/builtins.ts): each line's module declares
// exactly that type, every grader type a module under src/graders or src/envs exports is on the list (a new
// type without its line fails here), and graders/index.ts registers the list; a command that
// loads a config file registers the types that config names and no others, every type when it
// names an unknown one (so the error lists them all), and builds composite configs whose children
// are of other families; a cpu_heavy type runs in a killable worker whichever entry point loaded
// the types. Checked in fresh node processes (the registry is process-wide).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTINS, declaredType } from '../../dist/graders/builtins.js';
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
  it('graders/index.ts registers exactly the listed types, each declared by its module', async () => {
    const registered = listGraderTypes().map((t) => t.type);
    expect([...registered].sort()).toEqual(Object.keys(BUILTINS).sort());
    for (const [type, load] of Object.entries(BUILTINS)) {
      const t = declaredType((await load()) as Record<string, unknown>, type, type);
      expect(listGraderTypes().find((r) => r.type === type)).toBe(t);
    }
  });

  it('every grader type a module under src/graders or src/envs exports is on the list (a new type needs its line)', async () => {
    const root = fileURLToPath(DIST);
    const files = ['graders', 'envs']
      .filter((d) => existsSync(join(root, d)))
      .flatMap((d) => (readdirSync(join(root, d), { recursive: true }) as string[]).filter((f) => f.endsWith('.js')).map((f) => join(root, d, f)));
    expect(files.length).toBeGreaterThan(30);
    const unlisted: string[] = [];
    for (const f of files) {
      const m = (await import(pathToFileURL(f).href)) as Record<string, unknown>;
      for (const [name, v] of Object.entries(m)) {
        const t = v as { type?: unknown; build?: unknown; schema?: unknown } | null;
        if (typeof t !== 'object' || t === null || typeof t.type !== 'string' || typeof t.build !== 'function' || typeof t.schema !== 'object') continue;
        if (!Object.hasOwn(BUILTINS, t.type)) unlisted.push(`${relative(root, f)} ${name} (type "${t.type}")`);
      }
    }
    expect(unlisted).toEqual([]);
  });

  it('a module that declares no such type, or two, is named in the error', () => {
    expect(() => declaredType({}, 'x', 'm.js')).toThrow('arbiter: m.js must export exactly one grader type "x", found 0');
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

describe('cpu_heavy types are killable whichever entry point loaded the types', () => {
  // a user type that spins forever, declared cpu_heavy: only a killable worker thread can stop it
  const spin = join(dir, 'heavy-spin.mjs');
  writeFileSync(
    spin,
    `import { getGraderType, graderSchema, registerGraderType, PURE } from ${JSON.stringify(`${DIST}core/registry.js`)};
if (!getGraderType('test_heavy_spin')) registerGraderType({
  type: 'test_heavy_spin', summary: 'test only', schema: graderSchema({}), capabilities: PURE, cpu_heavy: true,
  build: () => () => { for (;;) {} },
});
`,
  );
  const entries: [string, string][] = [
    ['arbiter', 'index.js'],
    ['arbiter/graders', 'graders/index.js'],
    ['arbiter/server', 'server/index.js'],
    ['the command line (config/load.js, types on demand)', 'config/load.js'],
  ];
  for (const [what, entry] of entries) {
    it(`${what}: a spinning cpu_heavy grade under timeout_ms ends as a timeout`, () => {
      // a script file, not `node -e`: worker threads inherit the process's flags
      const script = join(dir, `spin-${entries.findIndex((e) => e[1] === entry)}.mjs`);
      writeFileSync(
        script,
        `const DIST = ${JSON.stringify(DIST)};
const spin = ${JSON.stringify(pathToFileURL(spin).href)};
await import(DIST + ${JSON.stringify(entry)});
await import(spin);
const { loadGrader } = await import(DIST + 'core/registry.js');
const { Services } = await import(DIST + 'core/services.js');
const services = new Services({ workerModules: [spin], preemptThreads: 1 });
const g = loadGrader({ type: 'test_heavy_spin', timeout_ms: 200 });
const r = await g.grade({ item: {}, sample: { output_text: 'a' } }, { services });
await services.close();
console.log(JSON.stringify({ valid: r.valid, kind: r.error?.kind, message: r.error?.message }));`,
      );
      const r = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
      expect(r.signal, `the grade was not preempted (the process was killed): ${r.stderr}`).toBeNull();
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({ valid: false, kind: 'timeout', message: 'grader "test_heavy_spin" did not finish within 200 ms' });
    }, 70_000);
  }
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
