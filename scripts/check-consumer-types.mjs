#!/usr/bin/env node
// @ts-check
// Type-level test of the public API as a user's package sees it (run by `npm run typecheck`, after
// the build): test/types/consumer/ is a separate package that depends on arbiter; this links the
// project into its node_modules (what npm does for its "file:" dependency) and runs tsc there, so
// `arbiter`, `arbiter/server`, `arbiter/graders`, `arbiter/eval` and `arbiter/queue` resolve through
// package.json "exports" to the built declarations in dist/. Exits with tsc's status.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const consumer = join(root, 'test', 'types', 'consumer');
// the installed package: its package.json and a link to dist/ (linking the whole project would put
// the project inside itself, a loop for every tool that walks test/)
const installed = join(consumer, 'node_modules', 'arbiter');

if (!existsSync(join(root, 'dist', 'index.d.ts'))) {
  console.error('check-consumer-types: dist/index.d.ts is missing: run npm run build first');
  process.exit(2);
}
rmSync(installed, { recursive: true, force: true });
mkdirSync(installed, { recursive: true });
copyFileSync(join(root, 'package.json'), join(installed, 'package.json'));
symlinkSync(relative(installed, join(root, 'dist')), join(installed, 'dist'), 'dir');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(consumer, 'tsconfig.json')], { stdio: 'inherit' });
if (r.status === 0) console.log('check-consumer-types: ok (the entry points type-check from a separate package)');
process.exit(r.status ?? 1);
