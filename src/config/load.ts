// Loading grader configs from JSON files or values, with parse errors located by line and column.
import { readFile } from 'node:fs/promises';
import { importGraderTypesFor } from '../graders/builtins.js';
import { ConfigError } from '../core/errors.js';
import { jsonErrorOffset, jsonFieldOffsets, type FieldOffsets } from './json-locate.js';
import { loadGrader } from '../core/registry.js';
import type { Grader } from '../core/grader.js';

/** Line and column (1-based) of a character offset. */
export function lineCol(text: string, pos: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < pos && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, column: pos - last };
}

/** JSON.parse with an error message that names the file, line and column. */
export function parseJsonText(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const off = jsonErrorOffset(text);
    const loc = off >= 0 ? lineCol(text, off) : undefined;
    const at = loc ? `${where}:${loc.line}:${loc.column}` : where;
    throw new ConfigError([{ path: '', message: `${at}: invalid JSON: ${msg}` }], where);
  }
}

export async function readGraderFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ConfigError([{ path: '', message: `cannot read grader file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }], file);
  }
  const config = parseJsonText(text, file);
  if (config && typeof config === 'object') sourceTexts.set(config, text);
  return config;
}

// the text each config object read by readGraderFile came from, to locate its fields
const sourceTexts = new WeakMap<object, string>();

/**
 * Where a config's field paths sit in the file it was read from (undefined for a config that did
 * not come from readGraderFile): the field's key, or its value for array elements and the root; a
 * path that is not in the text (a missing field) is placed at its nearest enclosing object.
 */
export function locatorFor(config: unknown): ((path: string) => { line: number; column: number } | undefined) | undefined {
  const text = config && typeof config === 'object' ? sourceTexts.get(config) : undefined;
  if (text === undefined) return undefined;
  let offsets: Map<string, FieldOffsets> | undefined;
  return (path) => {
    offsets ??= jsonFieldOffsets(text);
    for (let p = path; ; p = parentPath(p)) {
      const at = offsets.get(p);
      if (at) return lineCol(text, p === path ? (at.key ?? at.value) : at.value);
      if (p === '') return undefined;
    }
  };
}

/** `a.b[2].c` -> `a.b[2]` -> `a.b` -> `a` -> `` */
function parentPath(p: string): string {
  const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
  return cut < 0 ? '' : p.slice(0, cut);
}

/**
 * Reads, validates and builds a grader from a JSON file (registering the built-in types it names
 * first: a command loads only the grader families its config uses). Throws ConfigError.
 */
export async function loadGraderFile(file: string): Promise<Grader> {
  const config = await readGraderFile(file);
  await importGraderTypesFor(config);
  return loadGrader(config, { file, locate: locatorFor(config) });
}
