// Every config field of every grader type is read: a field the schema accepts but no code of its
// type reads would be accepted and ignored (an option that silently does nothing). The fields come
// from each type's own schema (the definition users validate against); the code searched is the
// module that declares the type and its family's folder, with the schema's declarations removed,
// plus the shared layers every grader uses (core, extract). The fields every grader accepts are read
// by the registry itself.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { BUILTINS } from '../../src/graders/builtins.js';
import '../../src/graders/index.js';
import { baseFields, getGraderType } from '../../src/core/registry.js';
import { ROOT } from '../helpers/cli.js';

const SRC = join(ROOT, 'src');
const tsFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
const read = (files: string[]) => files.map((f) => readFileSync(f, 'utf8')).join('\n');

/** Where each type is declared, from the one list (src/graders/builtins.ts). */
function modulePaths(): Record<string, string> {
  const text = readFileSync(join(SRC, 'graders/builtins.ts'), 'utf8');
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^\s+(\w+): \(\) => import\('([^']+)'\),$/gm)) out[m[1]!] = join(SRC, 'graders', m[2]!.replace(/\.js$/, '.ts'));
  return out;
}

/** The family folder: a type declared in a `graders/` subfolder of a family (judges) reads through the whole family. */
const familyOf = (module: string) => {
  const d = dirname(module);
  return d.endsWith('/graders') ? dirname(d) : d;
};

/** The files and, transitively, the project modules they import (a type may read a field through a shared helper). */
function withImports(files: string[]): string[] {
  const seen = new Set(files);
  const queue = [...files];
  while (queue.length) {
    const f = queue.pop()!;
    for (const m of readFileSync(f, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
      const dep = join(dirname(f), `${m[1]}.ts`);
      if (!seen.has(dep) && dep.startsWith(SRC)) {
        seen.add(dep);
        queue.push(dep);
      }
    }
  }
  return [...seen];
}

/** Source with every schema declaration of `field` (`field: z.…`, `field: someSchema`) taken out. */
function withoutDeclarations(src: string, field: string): string {
  return src.replace(new RegExp(`(^|[{,\\s])['"]?${field}['"]?\\??\\s*:\\s*(z\\.|[a-zA-Z_]+Schema\\b|[A-Z_]+\\b(?=[,}\\n]))`, 'gm'), '$1');
}

/** A read of `field`: a property access, a key in quotes (a lookup or a path), or a destructuring. */
function readsField(src: string, field: string): boolean {
  const f = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [
    new RegExp(`\\.${f}\\b(?!\\s*:)`),
    new RegExp(`\\[['"]${f}['"]\\]`),
    new RegExp(`['"]${f}['"]`),
    new RegExp(`\\{[^{}]*\\b${f}\\b[^{}]*\\}\\s*=`),
  ].some((r) => r.test(src));
}

/** Top-level fields of a JSON schema, through the branches of a union (a type with several forms). */
function fieldsOf(s: unknown): string[] {
  const o = s as { properties?: object; anyOf?: unknown[]; oneOf?: unknown[]; allOf?: unknown[] };
  const own = Object.keys(o.properties ?? {});
  const branches = [...(o.anyOf ?? []), ...(o.oneOf ?? []), ...(o.allOf ?? [])].flatMap(fieldsOf);
  return [...new Set([...own, ...branches])];
}

describe('every field a grader type accepts is read by its code', () => {
  const modules = modulePaths();
  // the shared layers: contracts and templates, answer extraction, the model clients (endpoint fields)
  const shared = read([...tsFiles(join(SRC, 'core')), ...tsFiles(join(SRC, 'extract')), ...tsFiles(join(SRC, 'models'))]);

  it('the list is read: every built-in type has its module', () => {
    expect(Object.keys(modules).sort()).toEqual(Object.keys(BUILTINS).sort());
  });

  it('the registry reads the fields every grader accepts', () => {
    const registry = read(tsFiles(join(SRC, 'core')));
    // `description` is the config reader's note: documentation, with no behaviour to take effect
    for (const f of Object.keys(baseFields).filter((f) => f !== 'description')) expect(readsField(withoutDeclarations(registry, f), f), f).toBe(true);
  });

  for (const type of Object.keys(BUILTINS)) {
    it(type, () => {
      const t = getGraderType(type)!;
      const props = fieldsOf(z.toJSONSchema(t.schema as z.ZodType, { io: 'input', unrepresentable: 'any' }));
      const own = props.filter((p) => !(p in baseFields));
      expect(own.length, `${type} has fields of its own`).toBeGreaterThan(0);
      const family = read(withImports(tsFiles(familyOf(modules[type]!))));
      const unread = own.filter((f) => !readsField(withoutDeclarations(family, f), f) && !readsField(withoutDeclarations(shared, f), f));
      expect(unread, `${type}: fields accepted but never read (${relative(ROOT, familyOf(modules[type]!))})`).toEqual([]);
    });
  }
});
