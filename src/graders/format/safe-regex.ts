// Load-time screening of configured regular expressions: JavaScript regexes cannot be interrupted,
// so a pattern with a nested unbounded quantifier (e.g. `(a+)+`, `(\w*\s?)*`), the classic cause of
// exponential backtracking on untrusted text, is refused unless the config sets `allow_unsafe_regex`.
// This is a star-height screen, not a proof: overlapping alternations like `(a|a)*` pass it.

interface Group {
  start: number;
  quantified: boolean;
}

/** Returns a description of the first nested unbounded quantifier in `pattern`, or undefined. */
export function nestedQuantifier(pattern: string): string | undefined {
  const stack: Group[] = [];
  let inClass = false;
  let justClosed: Group | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      i++;
      justClosed = undefined;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      justClosed = undefined;
      continue;
    }
    if (c === '(') {
      stack.push({ start: i, quantified: false });
      justClosed = undefined;
      continue;
    }
    if (c === ')') {
      const g = stack.pop();
      justClosed = g;
      if (g?.quantified && stack.length) stack[stack.length - 1]!.quantified = true;
      continue;
    }
    let len = 0;
    let unbounded = false;
    if (c === '*' || c === '+') [len, unbounded] = [1, true];
    else if (c === '?') len = 1;
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (m) [len, unbounded] = [m[0].length, m[2] !== undefined && (m[3] === '' || Number(m[3]) > 1)];
    }
    if (len) {
      if (unbounded && justClosed?.quantified) return `nested quantifier in "${pattern.slice(justClosed.start, i + len)}"`;
      if (unbounded && stack.length) stack[stack.length - 1]!.quantified = true;
      i += len - 1;
      if (pattern[i + 1] === '?') i++; // lazy marker
      justClosed = undefined;
      continue;
    }
    justClosed = undefined;
  }
  return undefined;
}
