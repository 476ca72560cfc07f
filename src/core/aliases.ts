// Deprecated option names: a grader type lists the old names it still accepts and the field each
// stands for; before validation the old name is rewritten to the new one (values mapped exactly by
// a table when the old name took other values), a deprecation note is recorded, and an old and a
// new name given together with different values is a config error naming both.
import type { ConfigIssue } from './errors.js';

export interface FieldAlias {
  /** The deprecated field (top level of the grader config). */
  from: string;
  /** The field it stands for: a top-level name, or a dotted path into an object field ("extract.think"). */
  to: string;
  /** Applies only to old values this accepts (e.g. `extract` written as a string, the old form). */
  when?: (v: unknown) => boolean;
  /** Old value -> new value, compared with ===; a value not listed is refused. Without it the value moves as is. */
  values?: readonly (readonly [unknown, unknown])[];
}

export interface AliasOutcome {
  /** The config with every old name rewritten (the input object is not modified). */
  config: Record<string, unknown>;
  /** Deprecation notes, one per old name used (path = the old field). */
  notes: ConfigIssue[];
  /** Conflicts and unmappable old values (path = the old field). */
  issues: ConfigIssue[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

const show = (v: unknown): string => JSON.stringify(v) ?? String(v);

/** Rewrites the deprecated fields of one grader config node (not its children: each node does its own). */
export function applyAliases(config: Record<string, unknown>, aliases: readonly FieldAlias[]): AliasOutcome {
  const notes: ConfigIssue[] = [];
  const issues: ConfigIssue[] = [];
  let out = config;
  for (const a of aliases) {
    if (!Object.hasOwn(out, a.from)) continue;
    const old = out[a.from];
    if (a.when && !a.when(old)) continue;
    let value = old;
    if (a.values) {
      const hit = a.values.find(([o]) => o === old);
      if (!hit) {
        issues.push({
          path: a.from,
          message: `invalid value ${show(old)} for deprecated field "${a.from}" (accepted: ${a.values.map(([o]) => show(o)).join(', ')}; prefer "${a.to}")`,
        });
        continue;
      }
      value = hit[1];
    }
    if (out === config) out = { ...config };
    delete out[a.from];
    const segs = a.to.split('.');
    let parent: Record<string, unknown> = out;
    let ok = true;
    for (const seg of segs.slice(0, -1)) {
      const cur = parent[seg];
      if (cur === undefined) parent[seg] = {};
      else if (!isPlainObject(cur)) {
        issues.push({ path: a.from, message: `deprecated field "${a.from}" stands for "${a.to}", but "${seg}" is not an object` });
        ok = false;
        break;
      } else parent[seg] = { ...cur };
      parent = parent[seg] as Record<string, unknown>;
    }
    if (!ok) continue;
    const leaf = segs[segs.length - 1]!;
    if (Object.hasOwn(parent, leaf) && !same(parent[leaf], value)) {
      issues.push({
        path: a.from,
        message: `"${a.from}" (deprecated) and "${a.to}" are both given and disagree: ${a.from}: ${show(old)} means ${a.to}: ${show(value)}, but ${a.to} is ${show(parent[leaf])}; give only "${a.to}"`,
      });
      continue;
    }
    parent[leaf] = value;
    notes.push({ path: a.from, message: `"${a.from}" is deprecated: write "${a.to}": ${show(value)} instead` });
  }
  return { config: out, notes, issues };
}
