// A held-out set for the math grader, built here by a fixed method and never tuned on: every
// MATH-500 final answer (../shared/data/math500/test.jsonl, "The answer is: X") is rewritten by
// mechanical notation-preserving rewrites (the rewritten answer must score 1 against the original)
// and by value-changing rewrites (it must score 0). Each rewrite applies only where its pattern
// matches, so a case is sound by construction; the cases are generated when asked for, never stored.
// Run: node scripts/math-heldout.mjs            (the figure, by rewrite; needs `npm run build`)
//      node scripts/math-heldout.mjs --dist DIR (the same with another build, e.g. a copy of main's dist/)
//      node scripts/math-heldout.mjs --jsonl    (the cases, one JSON object a line)
//      --data FILE: another copy of MATH-500's test.jsonl (default $ARBITER_DATA/math500/test.jsonl, else ../shared/data)
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DATA = process.env.ARBITER_DATA
  ? resolve(process.env.ARBITER_DATA, 'math500/test.jsonl')
  : fileURLToPath(new URL('../../shared/data/math500/test.jsonl', import.meta.url));

/** Indices of the characters of `s` that sit at brace/bracket depth 0. */
function topLevel(s, chars) {
  const at = [];
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\' && (s[i + 1] === '{' || s[i + 1] === '}')) {
      depth += s[i + 1] === '{' ? 1 : -1;
      i++;
    } else if ('{(['.includes(ch)) depth++;
    else if ('})]'.includes(ch)) depth--;
    else if (depth === 0 && chars.includes(ch)) at.push(i);
  }
  return at;
}

const split = (s, at) => at.map((p, k) => s.slice(k ? at[k - 1] + 1 : 0, p)).concat(s.slice(at.length ? at[at.length - 1] + 1 : 0));
const isText = (s) => /\\text|\\mbox|\\mathrm|[A-Za-z]{3,}/.test(s.replace(/\\[A-Za-z]+/g, ''));
const number = (s) => /^-?\d+(?:\.\d+)?$/.test(s);
/** `\frac{A}{B}` with A and B free of braces: its parts and where it sits. */
const FRAC = /\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}/;
/** A LaTeX thousands separator (`10,\\!080`, `1{,}000`): its comma is not a list separator. */
const THOUSANDS = /,\\!|\{,\}|,\d{3}(?!\d)/;

/** Notation-preserving rewrites: [name, rewrite or undefined when it does not apply]. */
/** @typedef {[string, (g: string) => string | undefined]} Rewrite */

/** @type {Rewrite[]} */
export const SAME = [
  ['dfrac', (g) => (/\\frac/.test(g) ? g.replace(/\\frac/g, '\\dfrac') : undefined)],
  // not after a digit: 1\\frac{4}{5} is a mixed number, 1((4)/(5)) a product
  ['frac-as-slash', (g) => (FRAC.test(g) && !/\d\s*\\[dt]?frac/.test(g) ? g.replace(new RegExp(FRAC.source, 'g'), '(($1)/($2))') : undefined)],
  ['left-right', (g) => (/[()]/.test(g) && !/\\left|\\right/.test(g) ? g.replace(/\(/g, '\\left(').replace(/\)/g, '\\right)') : undefined)],
  ['spacing', (g) => (/[+=,]/.test(g) && !THOUSANDS.test(g) ? `${g.replace(/\+/g, ' + ').replace(/=/g, ' = ').replace(/,/g, ',\\ ')}\\;` : `${g}\\,`)],
  ['braced-scripts', (g) => (/[\^_][0-9a-z]/.test(g) ? g.replace(/([\^_])([0-9a-z])/g, '$1{$2}') : undefined)],
  ['times', (g) => (/\\cdot/.test(g) ? g.replace(/\\cdot/g, '\\times') : undefined)],
  [
    'unicode',
    (g) =>
      /\\(?:pi|infty|le|ge)(?![A-Za-z])/.test(g)
        ? g
            .replace(/\\pi(?![A-Za-z])/g, 'π')
            .replace(/\\infty/g, '∞')
            .replace(/\\le(?![A-Za-z])/g, '≤')
            .replace(/\\ge(?![A-Za-z])/g, '≥')
        : undefined,
  ],
  ['text-unit', (g) => (number(g) || /^\\frac\{\d+\}\{\d+\}$/.test(g) ? `${g}\\text{ units}` : undefined)],
  [
    'decimal',
    (g) => {
      if (/^-?\d+$/.test(g)) return `${g}.00`;
      if (/^-?\d+\.\d+$/.test(g)) return `${g}0`;
      const m = /^(-?)\\[dt]?frac\{(\d+)\}\{(\d+)\}$/.exec(g);
      if (!m) return undefined;
      let d = Number(m[3]);
      while (d % 2 === 0) d /= 2;
      while (d % 5 === 0) d /= 5;
      return d === 1 && Number(m[3]) > 0 ? `${m[1]}${Number(m[2]) / Number(m[3])}` : undefined;
    },
  ],
  [
    'set-order',
    (g) => {
      const set = /^\\\{(.*)\\\}$/.exec(g);
      const body = set ? set[1] : /^[([]/.test(g) ? undefined : g;
      if (body === undefined || /=|\\text|\\in|</.test(body) || THOUSANDS.test(body)) return undefined;
      const at = topLevel(body, ',');
      if (!at.length) return undefined;
      const items = split(body, at).map((x) => x.trim());
      if (new Set(items).size !== items.length) return undefined;
      const r = items.reverse().join(', ');
      return set ? `\\{${r}\\}` : r;
    },
  ],
  [
    'sum-order',
    (g) => {
      if (/[=<>,]|\\pm|\\mp|\\text|\\in|\\cup/.test(g)) return undefined;
      const at = topLevel(g, '+-').filter((i) => i > 0 && !'^_{(eE'.includes(g[i - 1]));
      if (at.length !== 1 || g[at[0]] !== '+') return undefined;
      const [a, b] = split(g, at).map((x) => x.trim());
      if (!a || !b || b.startsWith('-')) return undefined;
      return a.startsWith('-') ? `${b}${a}` : `${b}+${a}`;
    },
  ],
  ['sqrt-as-power', (g) => (/\\sqrt\{[^{}]+\}/.test(g) ? g.replace(/\\sqrt\{([^{}]+)\}/g, '\\left($1\\right)^{1/2}') : undefined)],
  ['frac-as-div', (g) => (FRAC.test(g) && !/\d\s*\\[dt]?frac/.test(g) ? g.replace(new RegExp(FRAC.source, 'g'), '({$1} \\div {$2})') : undefined)],
  [
    'scientific',
    (g) => {
      const m = /^(\d)(\d{3,})$/.exec(g);
      if (!m) return undefined;
      const frac = m[2].replace(/0+$/, '');
      return `${m[1]}${frac ? `.${frac}` : ''} \\times 10^{${m[2].length}}`;
    },
  ],
  ['prose', (g) => `Putting it together, the final answer is $${g}$.`],
  ['boxed-remark', (g) => `We obtain $\\boxed{${g}}$, which we check against the conditions above.`],
];

/** Every notation-preserving rewrite that applies, one after another (then the answer boxed in a sentence). */
const ALL_AT_ONCE = ['braced-scripts', 'frac-as-slash', 'left-right', 'unicode', 'sum-order', 'set-order', 'spacing', 'boxed-remark'];
SAME.push([
  'all-at-once',
  (g) => {
    let t = g;
    let applied = 0;
    for (const name of ALL_AT_ONCE) {
      const rule = SAME.find((x) => x[0] === name);
      const r = rule ? rule[1](t) : undefined;
      if (r !== undefined) {
        t = r;
        applied++;
      }
    }
    return applied >= 3 ? t : undefined;
  },
]);

/** Value-changing rewrites: the rewritten answer is wrong. */
/** @type {Rewrite[]} */
export const DIFFERENT = [
  ['integer-plus-one', (g) => (/^-?\d+$/.test(g) ? String(BigInt(g) + 1n) : undefined)],
  [
    'last-digit',
    (g) => {
      if (isText(g) || /\\sqrt\[/.test(g)) return undefined;
      const ms = [...g.matchAll(/\d/g)].filter((m) => !'^_'.includes(g[m.index - 1] ?? '') && !/^1\^/.test(g.slice(m.index - 1)));
      const m = ms[ms.length - 1];
      if (!m) return undefined;
      return g.slice(0, m.index) + String((Number(m[0]) + 1) % 10) + g.slice(m.index + 1);
    },
  ],
  ['sign', (g) => (/[,=<>]|\\text|\\in|\\cup|\\pm/.test(g) || /^-/.test(g) || /^0(?:\.0*)?$/.test(g) || isText(g) ? undefined : `-(${g})`)],
  [
    'reciprocal',
    (g) => {
      const m = /^\\[dt]?frac\{([^{}]+)\}\{([^{}]+)\}$/.exec(g);
      return m && m[1] !== m[2] && !/^0$/.test(m[1]) ? `\\frac{${m[2]}}{${m[1]}}` : undefined;
    },
  ],
  [
    'drop-item',
    (g) => {
      const set = /^\\\{(.*)\\\}$/.exec(g);
      const body = set ? set[1] : /^[([]/.test(g) ? undefined : g;
      if (body === undefined || /=|\\text|\\in|</.test(body) || THOUSANDS.test(body)) return undefined;
      const at = topLevel(body, ',');
      if (!at.length) return undefined;
      const items = split(body, at).map((x) => x.trim());
      if (new Set(items).size !== items.length) return undefined;
      const r = items.slice(0, -1).join(', ');
      return set ? `\\{${r}\\}` : r;
    },
  ],
  [
    'interval-end',
    (g) => {
      const m = /^([[(])(.*)([\])])$/.exec(g);
      if (!m || topLevel(m[2], ',').length !== 1 || /\\infty/.test(split(m[2], topLevel(m[2], ','))[0])) return undefined;
      return `${m[1] === '[' ? '(' : '['}${m[2]}${m[3]}`;
    },
  ],
  ['pi-doubled', (g) => ((g.match(/\\pi(?![A-Za-z])/g) ?? []).length === 1 && !/[,=<>]|\\text/.test(g) ? g.replace(/\\pi(?![A-Za-z])/, '(2\\pi)') : undefined)],
  [
    'swap-coordinates',
    (g) => {
      const m = /^\((.*)\)$/.exec(g);
      if (!m || THOUSANDS.test(m[1])) return undefined;
      const at = topLevel(m[1], ',');
      if (at.length !== 1) return undefined;
      const [a, b] = split(m[1], at).map((x) => x.trim());
      return a !== b ? `(${b}, ${a})` : undefined;
    },
  ],
  [
    'cube-root',
    (g) => {
      const m = /\\sqrt\{([^{}]+)\}/.exec(g);
      return m && !/^[01]$/.test(m[1]) ? g.replace(m[0], `\\sqrt[3]{${m[1]}}`) : undefined;
    },
  ],
];

/** The MATH-500 final answers (the text after the last "The answer is: "). */
export function math500Golds(path = DATA) {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).answer.split('The answer is: ').pop().trim());
}

/** Every case: { gold, pred, expected, rewrite, source }. */
export function heldoutCases(golds = math500Golds()) {
  const out = [];
  golds.forEach((gold, i) => {
    /** @type {[Rewrite[], number][]} */
    const sets = [
      [SAME, 1],
      [DIFFERENT, 0],
    ];
    for (const [rules, expected] of sets) {
      for (const [rewrite, f] of rules) {
        const pred = f(gold);
        if (pred !== undefined && pred !== gold) out.push({ gold, pred, expected, rewrite, source: `math500#${i}` });
      }
    }
  });
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const d = process.argv.indexOf('--data');
  const cases = heldoutCases(math500Golds(d > 0 ? resolve(process.argv[d + 1]) : DATA));
  if (process.argv.includes('--jsonl')) {
    for (const c of cases) process.stdout.write(`${JSON.stringify(c)}\n`);
  } else {
    const k = process.argv.indexOf('--dist');
    const dist = k > 0 ? pathToFileURL(`${resolve(process.argv[k + 1])}/`).href : new URL('../dist/', import.meta.url).href;
    const { verifyMath } = await import(`${dist}graders/math/index.js`);
    const by = new Map();
    let agree = 0;
    for (const c of cases) {
      const v = verifyMath(c.pred, c.gold);
      const ok = v.valid && (v.score === 1 ? 1 : 0) === c.expected;
      agree += ok ? 1 : 0;
      const r = by.get(c.rewrite) ?? { n: 0, ok: 0, expected: c.expected, misses: [] };
      r.n++;
      r.ok += ok ? 1 : 0;
      if (!ok && r.misses.length < 3) r.misses.push(`${JSON.stringify(c.pred)} vs ${JSON.stringify(c.gold)}: ${v.reason.slice(0, 160)}`);
      by.set(c.rewrite, r);
    }
    for (const [name, r] of by) {
      console.log(`${name.padEnd(18)} expected ${r.expected}: ${r.ok}/${r.n}`);
      for (const m of r.misses) console.log(`    ${m}`);
    }
    console.log(`held-out: ${agree}/${cases.length} agree`);
  }
}
