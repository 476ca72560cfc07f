#!/usr/bin/env node
// @ts-check
// Layout check run by `npm run lint`: (1) src/core/ imports nothing outside itself (contracts only);
// (2) src/py/ (the Python-semantics runtime) imports nothing outside src/core and itself;
// (3) src/extract/ (the extraction layer) imports nothing outside src/core, src/py and itself;
// (4) no import cycle between folders. A folder is a top-level folder of src/ (src/cli, src/server…),
// and each grader family under src/graders/ and each environment family under src/envs/ counts as its
// own folder. (5) README's "## Layout" listing is the map of the tree: every folder of src/ and every
// top-level folder appears once with a one-line job, nothing listed is missing, and every entry point
// of package.json's exports is named under it; (6) README's "## Error kinds" table lists exactly the
// kinds of ERROR_KINDS in src/core/result.ts. Exits 1 and names each problem.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/** @param {string} dir @returns {Generator<string>} */
function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

/** The folder a file belongs to, for the cycle rule. @param {string} file */
function folderOf(file) {
  const parts = relative(src, file).split(sep);
  if (parts.length === 1) return '.';
  if ((parts[0] === 'graders' || parts[0] === 'envs') && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  return parts[0];
}

const importRe = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;
/** @type {Map<string, Map<string, string>>} folder -> Map(folder -> example "file imports spec") */
const edges = new Map();
/** @type {string[]} */
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
    const out = edges.get(from) ?? new Map();
    edges.set(from, out);
    if (!out.has(to)) out.set(to, where);
  }
}

// Tarjan's strongly connected components: any component with more than one folder is a cycle.
let index = 0;
/** @type {Map<string, number>} */
const idx = new Map();
/** @type {Map<string, number>} */
const low = new Map();
/** @type {string[]} */
const stack = [];
const on = new Set();
/** @param {string} v */
function strong(v) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of edges.get(v)?.keys() ?? []) {
    if (!idx.has(w)) {
      strong(w);
      low.set(v, Math.min(Number(low.get(v)), Number(low.get(w))));
    } else if (on.has(w)) low.set(v, Math.min(Number(low.get(v)), Number(idx.get(w))));
  }
  if (low.get(v) === idx.get(v)) {
    /** @type {string[]} */
    const comp = [];
    let w;
    do {
      w = String(stack.pop());
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

// ---- README's Layout: the map must match the tree ----
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The text of README section `title` (from its "## " heading to the next one), or undefined. @param {string} title */
function section(title) {
  const m = new RegExp(`^## ${title}\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(readme);
  return m?.[1];
}

/**
 * The project's folders directly under `dir` (relative to the root, with a trailing slash): those
 * holding a file git tracks or would track (ignored build output and installed packages are not the
 * project's), or every non-hidden folder where git is not available.
 * @param {string} dir
 */
function ownFolders(dir) {
  const rel = relative(root, dir).split(sep).join('/');
  const prefix = rel ? `${rel}/` : '';
  const git = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', rel || '.'], { cwd: root, encoding: 'utf8' });
  if (git.status === 0) {
    const out = new Set();
    for (const f of git.stdout.split('\0')) {
      const rest = f.slice(prefix.length).split('/');
      if (f.startsWith(prefix) && rest.length > 1 && !rest[0]?.startsWith('.') && existsSync(join(root, prefix, rest[0] ?? '')))
        out.add(`${prefix}${rest[0]}/`);
    }
    return [...out].sort();
  }
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.') && d.name !== 'node_modules' && d.name !== 'dist')
    .map((d) => `${prefix}${d.name}/`);
}

const layout = section('Layout');
let listed = 0;
if (layout === undefined) problems.push('README.md has no "## Layout" section');
else {
  const block = /```\n([\s\S]*?)\n```/.exec(layout);
  if (!block) problems.push('README.md "## Layout": no ``` block listing the folders');
  else {
    /** @type {Map<string, number>} folder -> line in the block */
    const seen = new Map();
    block[1].split('\n').forEach((line, i) => {
      if (line.trim() === '' || /^\s/.test(line)) return; // continuation of the previous entry's job
      const m = /^(\S+\/)\s+(\S.*)$/.exec(line);
      if (!m) {
        problems.push(`README.md "## Layout" line ${i + 1}: expected "folder/   its job", got ${JSON.stringify(line)}`);
        return;
      }
      const folder = m[1];
      const first = seen.get(folder);
      if (first !== undefined) problems.push(`README.md "## Layout" lists ${folder} twice (lines ${first} and ${i + 1} of the block): keep one entry`);
      else seen.set(folder, i + 1);
      if (!existsSync(join(root, folder)) || !statSync(join(root, folder)).isDirectory())
        problems.push(`README.md "## Layout" lists ${folder}, which does not exist: remove its line or fix the name`);
    });
    listed = seen.size;
    const required = [...ownFolders(src), ...ownFolders(root).filter((f) => f !== 'src/')];
    for (const f of required) {
      // a folder of src/ may be listed itself or through its subfolders (src/envs/bfcl/ covers src/envs/)
      const covered = seen.has(f) || (f.startsWith('src/') && [...seen.keys()].some((k) => k.startsWith(f)));
      if (!covered) problems.push(`README.md "## Layout" does not list ${f}: add a line "${f.padEnd(16)}<its one-line job>"`);
    }
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const sub of Object.keys(pkg.exports ?? {})) {
    if (sub === './package.json') continue;
    const name = sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`;
    if (!layout.includes(`\`${name}\``))
      problems.push(`README.md "## Layout": the entry point \`${name}\` (package.json exports "${sub}") is not named in "Entry points"`);
  }
}

// ---- README's Error kinds table against ERROR_KINDS ----
const resultFile = join(src, 'core', 'result.ts');
const source = ts.createSourceFile(resultFile, readFileSync(resultFile, 'utf8'), ts.ScriptTarget.ES2022, true);
/** @type {string[] | undefined} */
let codeKinds;
source.forEachChild((node) => {
  if (!ts.isVariableStatement(node)) return;
  for (const d of node.declarationList.declarations) {
    if (!ts.isIdentifier(d.name) || d.name.text !== 'ERROR_KINDS' || !d.initializer) continue;
    let init = d.initializer;
    while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init)) init = init.expression;
    if (ts.isObjectLiteralExpression(init))
      codeKinds = init.properties.flatMap((p) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? [p.name.text] : []));
  }
});
const kindsText = section('Error kinds');
if (!codeKinds) problems.push(`${relative(root, resultFile)}: no "const ERROR_KINDS = { ... }" object literal found (the error-kinds check reads it)`);
else if (kindsText === undefined) problems.push('README.md has no "## Error kinds" section');
else {
  const docKinds = [...kindsText.matchAll(/^\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => m[1] ?? '');
  const inCode = new Set(codeKinds);
  const inDoc = new Set(docKinds);
  for (const k of codeKinds)
    if (!inDoc.has(k)) problems.push(`README.md "## Error kinds" does not list \`${k}\` (ERROR_KINDS in ${relative(root, resultFile)} has it): add a row`);
  for (const k of inDoc)
    if (!inCode.has(k))
      problems.push(`README.md "## Error kinds" lists \`${k}\`, which ERROR_KINDS in ${relative(root, resultFile)} does not have: remove its row`);
  for (const k of inDoc) if (docKinds.indexOf(k) !== docKinds.lastIndexOf(k)) problems.push(`README.md "## Error kinds" lists \`${k}\` twice`);
}

if (problems.length) {
  console.error(`check-layout: ${problems.length} problem(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(
  `check-layout: ok (${edges.size} folders, core self-contained, py imports only core, extract only core and py, no folder cycles; README Layout lists ${listed} folders, error kinds match the code)`,
);
