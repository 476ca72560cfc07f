// The trajectory schema the design prompt shows, read from the data itself: every field path of the
// trajectories (lists as `[]`), the Python types seen there, the range of numbers, a few example
// strings and the lengths of lists, so the model writes code against the fields that exist.

interface Seen {
  types: Set<string>;
  min?: number;
  max?: number;
  strings: Set<string>;
  minLen?: number;
  maxLen?: number;
}

const MAX_PATHS = 200;
const MAX_ROWS = 200;
const MAX_EXAMPLES = 4;

function pyType(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'str';
  if (Array.isArray(v)) return 'list';
  return 'dict';
}

function visit(v: unknown, path: string, out: Map<string, Seen>, depth: number): void {
  let s = out.get(path);
  if (!s) {
    if (out.size >= MAX_PATHS) return;
    s = { types: new Set(), strings: new Set() };
    out.set(path, s);
  }
  const t = pyType(v);
  s.types.add(t);
  if (t === 'int' || t === 'float') {
    const x = Number(v);
    s.min = s.min === undefined ? x : Math.min(s.min, x);
    s.max = s.max === undefined ? x : Math.max(s.max, x);
  } else if (t === 'str' && s.strings.size < MAX_EXAMPLES + 1) s.strings.add((v as string).slice(0, 40));
  if (depth > 12) return;
  if (Array.isArray(v)) {
    s.minLen = s.minLen === undefined ? v.length : Math.min(s.minLen, v.length);
    s.maxLen = s.maxLen === undefined ? v.length : Math.max(s.maxLen, v.length);
    for (const x of v.slice(0, 100)) visit(x, `${path}[]`, out, depth + 1);
  } else if (t === 'dict') {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) visit(x, `${path}.${k}`, out, depth + 1);
  }
}

const fmt = (x: number) => String(Number(x.toPrecision(6)));

/** One line per field path: `trajectory.steps[].action: str, e.g. "up", "left"`. */
export function trajectorySchema(trajectories: readonly unknown[]): string {
  const out = new Map<string, Seen>();
  for (const t of trajectories.slice(0, MAX_ROWS)) visit(t, 'trajectory', out, 0);
  const lines: string[] = [];
  for (const [path, s] of out) {
    let line = `${path}: ${[...s.types].join(' | ')}`;
    if (s.minLen !== undefined) line += s.minLen === s.maxLen ? ` (length ${s.minLen})` : ` (length ${s.minLen} to ${s.maxLen})`;
    if (s.min !== undefined) line += s.min === s.max ? `, always ${fmt(s.min)}` : `, from ${fmt(s.min)} to ${fmt(s.max!)}`;
    if (s.strings.size) {
      const ex = [...s.strings].slice(0, MAX_EXAMPLES).map((x) => JSON.stringify(x));
      line += `, e.g. ${ex.join(', ')}${s.strings.size > MAX_EXAMPLES ? ', ...' : ''}`;
    }
    lines.push(line);
  }
  if (out.size >= MAX_PATHS) lines.push(`(only the first ${MAX_PATHS} field paths are listed)`);
  return lines.join('\n');
}
