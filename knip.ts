// knip (unused files, exports and dependencies). Tests import the built package from dist/, which
// knip cannot follow, so every src module that a test or benchmark imports through dist/ is an
// entry here: its exports count as used.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? (n === 'fixtures' || n === 'node_modules' ? [] : walk(p)) : /\.(ts|mjs)$/.test(n) ? [p] : [];
  });
}

/** Entries already named by package.json (exports, bin). */
const PACKAGE_ENTRIES = new Set(['src/index.ts', 'src/server/index.ts', 'src/graders/index.ts', 'src/eval/index.ts', 'src/cli/main.ts', 'src/queue/index.ts']);
const viaDist = new Set<string>();
for (const f of [...walk('test'), ...walk('bench')]) {
  for (const m of readFileSync(f, 'utf8').matchAll(/['"`](?:\.\.\/)+dist\/([^'"`]+)\.js['"`]/g)) viaDist.add(`src/${m[1]}.ts`);
}

export default {
  // the package's exports and bin are entries already (package.json)
  entry: ['src/workers/grader-worker.ts', 'bench/*.mjs', 'scripts/*.mjs', 'test/**/*.{ts,mjs}', ...[...viaDist].filter((f) => !PACKAGE_ENTRIES.has(f))],
  project: ['src/**/*.ts', 'bench/**/*.mjs', 'scripts/**/*.mjs', 'test/**/*.{ts,mjs}'],
  // loaded by path (lazyRequire / require.resolve / inlined into reports), not imported
  ignoreDependencies: ['@observablehq/plot', 'ajv-formats', 'langdetect', 'fast-json-stringify'],
  // installed by scripts/setup.sh (Debian's redis-server, util-linux's taskset), started by
  // the queue tests and bench/server.mjs
  ignoreBinaries: ['redis-server', 'taskset'],
  // the JavaScript driver requires its solution host by the name it has inside the sandbox
  // (drivers/host.cjs is delivered as host.js beside it)
  ignoreUnresolved: ['./host.js'],
  ignoreExportsUsedInFile: true,
};
