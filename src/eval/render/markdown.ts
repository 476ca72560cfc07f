// Markdown for pull requests: headline numbers, the metrics, and the worst cases (cut short).
import { cellText, flatMetrics, madeBy, showNumber, type EvalReport } from '../report.js';

function cell(v: unknown, n = 160): string {
  return cellText(v, n)
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
}

export function renderMarkdown(r: EvalReport, maxRows = 15): string {
  const out: string[] = [
    `## ${r.title}`,
    '',
    `\`${madeBy(r)}\` · ${r.created} · ${r.counts.records} records, ${r.counts.skipped} skipped, ${r.counts.invalid} ungradeable`,
    '',
  ];
  const hasPub = r.headline.some((h) => h.published !== undefined);
  const hasBase = r.headline.some((h) => h.baseline !== undefined);
  out.push(`| metric | value${hasBase ? ' | A | Δ' : ''}${hasPub ? ' | published' : ''} |`, `|---|---:${hasBase ? '|---:|---:' : ''}${hasPub ? '|---:' : ''}|`);
  for (const h of r.headline) {
    const u = h.unit === '%' ? '%' : '';
    const v = `${showNumber(h.value, h.digits)}${h.value !== null ? u : ''}`;
    const base = hasBase
      ? ` | ${showNumber(h.baseline, h.digits)} | ${h.value !== null && h.baseline !== null && h.baseline !== undefined ? `${h.value - h.baseline >= 0 ? '+' : ''}${showNumber(h.value - h.baseline, h.digits)}` : ''}`
      : '';
    out.push(`| ${cell(h.label)} | ${v}${base}${hasPub ? ` | ${h.published !== undefined ? showNumber(h.published, h.digits) : ''}` : ''} |`);
  }
  out.push('', '<details><summary>All metrics</summary>', '', '| key | value |', '|---|---|');
  for (const [k, v] of flatMetrics(r.metrics)) out.push(`| \`${k}\` | ${cell(v, 300)} |`);
  out.push('', '</details>', '');
  for (const t of r.tables) {
    out.push(`### ${t.title} (${t.total})`, '');
    if (!t.rows.length) {
      out.push('none', '');
      continue;
    }
    out.push(`| ${t.columns.map((c) => cell(c)).join(' | ')} |`, `|${t.columns.map(() => '---').join('|')}|`);
    for (const row of t.rows.slice(0, maxRows)) out.push(`| ${row.map((c) => cell(c)).join(' | ')} |`);
    if (t.total > Math.min(maxRows, t.rows.length)) out.push('', `${Math.min(maxRows, t.rows.length)} of ${t.total} shown.`);
    out.push('');
  }
  for (const n of r.notes) out.push(`> ${n}`, '');
  if (r.problems.length) out.push(`**Problems (${r.counts.skipped}):**`, '', ...r.problems.slice(0, 20).map((p) => `- ${cell(p, 300)}`), '');
  return out.join('\n');
}
