// Tag-structure checking for outputs like `<think>...</think><answer>...</answer>`: finds the
// listed tags (and only those), checks that they are well formed, that each appears between its
// min and max times, in the listed order, not nested in one another, and (optionally) that no
// text other than whitespace lies outside them. Returns every violation, not just the first.

export interface TagSpec {
  name: string;
  min: number;
  max: number;
}

export interface TagOptions {
  order: boolean;
  /** "whitespace": only whitespace may appear outside the top-level tags; "any": no constraint. */
  outside: 'whitespace' | 'any';
  nested: boolean;
}

export interface TagCheck {
  /** Individual requirements, in a stable order, with whether each holds. */
  checks: { requirement: string; ok: boolean; detail?: string }[];
  blocks: { name: string; start: number; end: number; depth: number }[];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const snippet = (s: string) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}...` : s);

export function checkTags(text: string, specs: readonly TagSpec[], opts: TagOptions): TagCheck {
  const names = specs.map((s) => s.name);
  const re = new RegExp(`<(/?)(${names.map(escapeRe).join('|')})>`, 'g');
  const stack: { name: string; start: number; inner: number }[] = [];
  const openCount = new Map<string, number>(); // how many of each name are on the stack (O(1) lookups)
  const push = (e: { name: string; start: number; inner: number }) => {
    stack.push(e);
    openCount.set(e.name, (openCount.get(e.name) ?? 0) + 1);
  };
  const pop = () => {
    const e = stack.pop()!;
    openCount.set(e.name, openCount.get(e.name)! - 1);
    return e;
  };
  const blocks: TagCheck['blocks'] = [];
  const problems: string[] = [];
  let nestedSeen: string | undefined;
  for (const m of text.matchAll(re)) {
    const name = m[2]!;
    const at = m.index!;
    if (!m[1]) {
      if (stack.length && !nestedSeen) nestedSeen = `<${name}> at ${at} is inside <${stack[stack.length - 1]!.name}>`;
      push({ name, start: at, inner: at + m[0].length });
      continue;
    }
    const top = stack[stack.length - 1];
    if (top && top.name === name) {
      pop();
      blocks.push({ name, start: top.start, end: at + m[0].length, depth: stack.length });
    } else if ((openCount.get(name) ?? 0) > 0) {
      problems.push(`</${name}> at ${at} closes <${name}> while <${top!.name}> is still open`);
      // recover: close up to the matching opener
      while (stack.length && stack[stack.length - 1]!.name !== name) pop();
      const o = pop();
      blocks.push({ name, start: o.start, end: at + m[0].length, depth: stack.length });
    } else {
      problems.push(`</${name}> at ${at} has no opening <${name}>`);
    }
  }
  for (const s of stack) problems.push(`<${s.name}> at ${s.start} is never closed`);
  blocks.sort((a, b) => a.start - b.start);

  const checks: TagCheck['checks'] = [];
  checks.push({ requirement: 'well-formed', ok: problems.length === 0, ...(problems.length ? { detail: problems[0] } : {}) });
  for (const spec of specs) {
    const n = blocks.filter((b) => b.name === spec.name).length;
    const ok = n >= spec.min && n <= spec.max;
    const want = spec.min === spec.max ? `${spec.min}` : Number.isFinite(spec.max) ? `${spec.min}..${spec.max}` : `at least ${spec.min}`;
    checks.push({ requirement: `count <${spec.name}>`, ok, ...(ok ? {} : { detail: `<${spec.name}> appears ${n} time(s), expected ${want}` }) });
  }
  const top = blocks.filter((b) => b.depth === 0);
  if (opts.order) {
    let detail: string | undefined;
    for (let i = 1; i < top.length && !detail; i++) {
      const a = names.indexOf(top[i - 1]!.name);
      const b = names.indexOf(top[i]!.name);
      if (b < a) detail = `<${top[i]!.name}> at ${top[i]!.start} comes after <${top[i - 1]!.name}>, but the order is ${names.map((n) => `<${n}>`).join(', ')}`;
    }
    checks.push({ requirement: 'order', ok: !detail, ...(detail ? { detail } : {}) });
  }
  if (!opts.nested) checks.push({ requirement: 'not nested', ok: !nestedSeen, ...(nestedSeen ? { detail: nestedSeen } : {}) });
  if (opts.outside === 'whitespace') {
    let pos = 0;
    let detail: string | undefined;
    for (const b of [...top, { start: text.length, end: text.length }]) {
      const gap = text.slice(pos, b.start);
      if (!detail && gap.trim() !== '') detail = `text outside the tags at ${pos}: ${snippet(gap.trim())}`;
      pos = Math.max(pos, b.end);
    }
    checks.push({ requirement: 'nothing outside tags', ok: !detail, ...(detail ? { detail } : {}) });
  }
  return { checks, blocks };
}
