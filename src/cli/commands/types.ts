// `arbiter types`: list the registered grader types and the error-kind taxonomy; `arbiter types NAME`:
// one type's fields (from its schema, as JSON Schema) and an example config (the first of the
// project's examples/ that uses the type, else a skeleton of its required fields).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { z } from 'zod';
import '../../graders/index.js';
import { getGraderType, listGraderTypes } from '../../core/registry.js';
import { ERROR_KINDS } from '../../core/result.js';
import { didYouMean } from '../../core/suggest.js';
import { EXIT } from '../exit.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

type Json = Record<string, unknown>;

/** One line per field: `path  what`, nested objects as dotted paths (two levels). */
function fieldLines(schema: Json, prefix = '', depth = 0): string[] {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const out: string[] = [];
  for (const [k, p] of Object.entries(props)) {
    const path = prefix + k;
    out.push(`${path}\t${describe(p)}${required.has(k) ? ' (required)' : ''}`);
    if (depth < 1 && p.type === 'object' && p.properties) out.push(...fieldLines(p, `${path}.`, depth + 1));
  }
  return out;
}

function describe(p: Json): string {
  if (Array.isArray(p.enum)) return `one of ${p.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (p.const !== undefined) return `exactly ${JSON.stringify(p.const)}`;
  const alts = (p.anyOf ?? p.oneOf) as Json[] | undefined;
  if (alts) return alts.map(describe).join(' | ');
  if (p.type === 'array') return `array of ${p.items ? describe(p.items as Json) : 'values'}`;
  if (p.type === 'integer' || p.type === 'number') {
    const lo = p.minimum ?? p.exclusiveMinimum;
    const hi = p.maximum !== undefined && p.maximum !== Number.MAX_SAFE_INTEGER ? p.maximum : undefined;
    const range = lo !== undefined || hi !== undefined ? ` in ${p.exclusiveMinimum !== undefined ? '(' : '['}${lo ?? '-∞'}, ${hi ?? '∞'}]` : '';
    return `${p.type}${range}`;
  }
  if (typeof p.type === 'string') return p.type;
  return 'any JSON value';
}

/** The grader node of `type` inside a config (the root or any nested grader), or undefined. */
function findNode(v: unknown, type: string): Json | undefined {
  if (Array.isArray(v)) {
    for (const x of v) {
      const f = findNode(x, type);
      if (f) return f;
    }
  } else if (v && typeof v === 'object') {
    if ((v as Json).type === type) return v as Json;
    for (const x of Object.values(v)) {
      const f = findNode(x, type);
      if (f) return f;
    }
  }
  return undefined;
}

/** The first example config of the project that uses `type`: its file and the node. */
function exampleOf(type: string): { file: string; node: Json } | undefined {
  let files: string[];
  try {
    files = readdirSync(join(ROOT, 'examples'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch {
    return undefined;
  }
  for (const f of files) {
    try {
      const node = findNode(JSON.parse(readFileSync(join(ROOT, 'examples', f), 'utf8')), type);
      if (node) return { file: relative(ROOT, join(ROOT, 'examples', f)), node };
    } catch {
      // not JSON: not an example config
    }
  }
  return undefined;
}

function skeleton(type: string, schema: Json): Json {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const out: Json = { type };
  for (const k of (schema.required ?? []) as string[]) if (k !== 'type') out[k] = `<${describe(props[k] ?? {})}>`;
  return out;
}

function showType(name: string): void {
  const t = getGraderType(name);
  if (!t) {
    const names = listGraderTypes().map((x) => x.type);
    process.stderr.write(`arbiter: unknown grader type "${name}"${didYouMean(name, names)}; see 'arbiter types'\n`);
    process.exit(EXIT.USAGE);
  }
  const schema = z.toJSONSchema(t.schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const lines = fieldLines(schema).map((l) => l.split('\t') as [string, string]);
  const w = Math.max(...lines.map(([k]) => k.length));
  process.stdout.write(`${t.type}: ${t.summary}\n\nfields:\n`);
  for (const [k, d] of lines) process.stdout.write(`  ${k.padEnd(w)}  ${d}\n`);
  const ex = exampleOf(t.type);
  process.stdout.write(ex ? `\nexample (${ex.file}):\n` : '\nexample (its required fields):\n');
  process.stdout.write(JSON.stringify(ex?.node ?? skeleton(t.type, schema), null, 2) + '\n');
}

export function register(program: Command): void {
  program
    .command('types')
    .description("list grader types and error kinds; with a NAME, that type's fields and an example config")
    .argument('[name]', 'a grader type (e.g. math)')
    .action((name: string | undefined) => {
      if (name !== undefined) return showType(name);
      const types = listGraderTypes();
      const w = Math.max(...types.map((t) => t.type.length));
      process.stdout.write('grader types:\n');
      for (const t of types) process.stdout.write(`  ${t.type.padEnd(w)}  ${t.summary}\n`);
      process.stdout.write('\nerror kinds (valid: false):\n');
      const kw = Math.max(...Object.keys(ERROR_KINDS).map((k) => k.length));
      for (const [k, d] of Object.entries(ERROR_KINDS)) process.stdout.write(`  ${k.padEnd(kw)}  ${d}\n`);
      process.stdout.write("\n'arbiter types NAME' shows one type's fields and an example.\n");
    });
}
