#!/usr/bin/env node
// Layout check run by `npm run lint`: (1) src/core/ imports nothing outside itself (contracts only);
// (2) src/py/ (the Python-semantics runtime) imports nothing outside src/core and itself;
// (3) src/extract/ (the extraction layer) imports nothing outside src/core, src/py and itself;
// (4) no import cycle between folders. A folder is a top-level folder of src/ (src/cli, src/server…),
// and each grader family under src/graders/ and each environment family under src/envs/ counts as its
// own folder. Exits 1 and names the offending imports when a rule is broken.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

/** The folder a file belongs to, for the cycle rule. */
function folderOf(file) {
  const parts = relative(src, file).split(sep);
  if (parts.length === 1) return '.';
  if ((parts[0] === 'graders' || parts[0] === 'envs') && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  return parts[0];
}

const importRe = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;
const edges = new Map(); // folder -> Map(folder -> example "file -> spec")
const problems = [];
for (const file of walk(src)) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(importRe)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec?.startsWith('.')) continue;
    const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
    const from = folderOf(file);
    const to = folderOf(target);
    const where = `${relative(root, file)} imports ${spec}`;
    if (from === 'core' && to !== 'core') problems.push(`core must import nothing outside src/core: ${where}`);
    if (from === 'py' && to !== 'core' && to !== 'py') problems.push(`py must import nothing outside src/core and src/py: ${where}`);
    if (from === 'extract' && !['core', 'py', 'extract'].includes(to))
      problems.push(`extract must import nothing outside src/core, src/py and src/extract: ${where}`);
    if (from === to) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from).has(to)) edges.get(from).set(to, where);
  }
}

// Tarjan's strongly connected components: any component with more than one folder is a cycle.
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const on = new Set();
function strong(v) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of edges.get(v)?.keys() ?? []) {
    if (!idx.has(w)) {
      strong(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const comp = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      comp.push(w);
    } while (w !== v);
    if (comp.length > 1) {
      const set = new Set(comp);
      const why = comp.flatMap((a) => [...(edges.get(a) ?? [])].filter(([b]) => set.has(b)).map(([b, where]) => `    ${a} -> ${b}: ${where}`));
      problems.push(`folder cycle between ${comp.sort().join(', ')}:\n${why.join('\n')}`);
    }
  }
}
for (const v of edges.keys()) if (!idx.has(v)) strong(v);

if (problems.length) {
  console.error(`check-layout: ${problems.length} problem(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`check-layout: ok (${edges.size} folders, core self-contained, py imports only core, extract only core and py, no folder cycles)`);
