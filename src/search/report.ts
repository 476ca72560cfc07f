// The search report as people read it: a text table of accuracy against N per method (with the
// mean tokens spent), and a small SVG line plot of the same (x: N on a log-2 axis, y: accuracy).
import type { Method, SearchReport } from './run.js';

const pct = (x: number | undefined): string => (x === undefined || Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)}%`);

/** A Markdown table: one row per method, one column per N, cells "accuracy (mean tokens)". */
export function searchTable(r: SearchReport): string {
  const head = `| method | ${r.n.map((n) => `N=${n}`).join(' | ')} |`;
  const rule = `|---|${r.n.map(() => '---').join('|')}|`;
  const rows = r.methods.map((m) => {
    const cells = r.n.map((n) => {
      const t = r.mean_tokens[m]?.[n];
      return `${pct(r.accuracy[m]?.[n])}${t === undefined || Number.isNaN(t) ? '' : ` (${Math.round(t)} tok)`}`;
    });
    return `| ${m} | ${cells.join(' | ')} |`;
  });
  return [
    head,
    rule,
    ...rows,
    '',
    `${r.gradable} of ${r.problems} problems gradable${r.failed ? `, ${r.failed} failed (left out)` : ''}; cells: accuracy (mean completion tokens per problem)`,
  ].join('\n');
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** An SVG line plot of accuracy against N (log-2 x axis), one line per method, with a legend. */
export function searchPlotSvg(r: SearchReport, title = 'accuracy vs. number of samples'): string {
  const W = 640;
  const H = 400;
  const L = 60;
  const R = 170;
  const T = 40;
  const B = 50;
  const xs = r.n.map((n) => Math.log2(n));
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  const px = (n: number) => L + (x1 === x0 ? (W - L - R) / 2 : ((Math.log2(n) - x0) / (x1 - x0)) * (W - L - R));
  const py = (a: number) => T + (1 - a) * (H - T - B);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${(L + W - R) / 2}" y="22" text-anchor="middle" font-size="14">${esc(title)}</text>`,
  ];
  for (let k = 0; k <= 5; k++) {
    const a = k / 5;
    parts.push(
      `<line x1="${L}" y1="${py(a)}" x2="${W - R}" y2="${py(a)}" stroke="#ddd"/>`,
      `<text x="${L - 6}" y="${py(a) + 4}" text-anchor="end">${(a * 100).toFixed(0)}%</text>`,
    );
  }
  for (const n of r.n)
    parts.push(
      `<line x1="${px(n)}" y1="${H - B}" x2="${px(n)}" y2="${H - B + 4}" stroke="#333"/>`,
      `<text x="${px(n)}" y="${H - B + 18}" text-anchor="middle">${n}</text>`,
    );
  parts.push(
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/>`,
    `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#333"/>`,
    `<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">N (samples or beams, log scale)</text>`,
    `<text x="16" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(T + H - B) / 2})">accuracy</text>`,
  );
  r.methods.forEach((m: Method, i) => {
    const c = COLORS[i % COLORS.length]!;
    const pts = r.n.map((n) => [n, r.accuracy[m]?.[n]] as const).filter((p): p is readonly [number, number] => p[1] !== undefined && !Number.isNaN(p[1]));
    if (pts.length > 1)
      parts.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.map(([n, a]) => `${px(n).toFixed(1)},${py(a).toFixed(1)}`).join(' ')}"/>`);
    for (const [n, a] of pts)
      parts.push(`<circle cx="${px(n).toFixed(1)}" cy="${py(a).toFixed(1)}" r="3.5" fill="${c}"><title>${esc(m)} N=${n}: ${pct(a)}</title></circle>`);
    const ly = T + 10 + i * 20;
    parts.push(
      `<line x1="${W - R + 15}" y1="${ly}" x2="${W - R + 40}" y2="${ly}" stroke="${c}" stroke-width="2"/>`,
      `<text x="${W - R + 46}" y="${ly + 4}">${esc(m)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
