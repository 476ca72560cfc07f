// Dotted paths into records ("a.b.0"), the one reader every option that names a field uses. Only a
// record's own properties are followed, so a path from the command line or a config never reaches
// inherited ones ("constructor", "__proto__").
/** The value at a dotted path; undefined when absent. */
export function getPath(rec: unknown, path: string): unknown {
  let cur: unknown = rec;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}
