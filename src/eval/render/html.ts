// One self-contained HTML file per report: headline numbers, plots drawn in the page by Observable
// Plot (bundled inline with d3, no network: a Content-Security-Policy forbids any fetch), the
// metrics, worst-case tables with reasons, worst cases drawn on their screenshots (an SVG over the
// embedded image, in the image's pixels), notes and problems. Numbers carry data-metric /
// data-value attributes so a test can check the page against the JSON.
import { cellText, flatMetrics, madeBy, showNumber, type EvalReport, type Headline, type OverlayCase, type OverlaySet } from '../report.js';
import { plottingLibrary } from './assets.js';

function esc(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function headlineCard(h: Headline): string {
  const shown = `${showNumber(h.value, h.digits)}${h.value !== null && h.unit === '%' ? '%' : ''}`;
  const pub = h.published !== undefined ? `<div class="sub">published ${esc(showNumber(h.published, h.digits))}${h.unit === '%' ? '%' : ''}</div>` : '';
  let base = '';
  if (h.baseline !== undefined) {
    const d = h.value !== null && h.baseline !== null ? h.value - h.baseline : null;
    base = `<div class="sub">A: <span data-baseline="${esc(h.key)}">${esc(showNumber(h.baseline, h.digits))}</span>${d !== null ? ` · Δ ${d >= 0 ? '+' : ''}${esc(showNumber(d, h.digits))}` : ''}</div>`;
  }
  return `<div class="card"><div class="v" data-metric="${esc(h.key)}" data-value="${esc(h.value ?? '')}" data-digits="${h.digits}">${esc(shown)}</div><div class="l">${esc(h.label)}</div>${pub}${base}</div>`;
}

const IMAGE_URL = /^data:image\/(?:png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+=*$/;
const n = (v: number) => String(Math.round(v * 100) / 100);
const rect = (b: readonly number[], cls: string) =>
  `<rect class="${cls}" x="${n(b[0]!)}" y="${n(b[1]!)}" width="${n(b[2]! - b[0]!)}" height="${n(b[3]! - b[1]!)}" vector-effect="non-scaling-stroke"/>`;

/** One case: the screenshot with an SVG over it in the image's own pixels (viewBox), the gold box and the prediction drawn. */
function overlayCase(c: OverlayCase): string {
  // only an image data URL reaches the page (the suite checked its bytes; this keeps the attribute inert whatever a report file holds)
  if (!IMAGE_URL.test(c.image))
    return `<figure class="case" data-case="${esc(c.where)}" data-error="not an image data URL"><figcaption>${esc(c.caption)}</figcaption></figure>`;
  const r = Math.max(4, Math.max(c.width, c.height) / 120);
  const marks = [
    rect(c.gold, 'gold'),
    c.box ? rect(c.box, 'pred-box') : '',
    c.point
      ? `<circle class="pred" cx="${n(c.point[0])}" cy="${n(c.point[1])}" r="${n(r)}" vector-effect="non-scaling-stroke"/><path class="pred" d="M${n(c.point[0] - 2 * r)} ${n(c.point[1])}h${n(4 * r)}M${n(c.point[0])} ${n(c.point[1] - 2 * r)}v${n(4 * r)}" vector-effect="non-scaling-stroke"/>`
      : '',
  ].join('');
  return `<figure class="case" data-case="${esc(c.where)}"><div class="shot"><img src="${esc(c.image)}" width="${c.width}" height="${c.height}" alt="${esc(c.where)}"><svg viewBox="0 0 ${c.width} ${c.height}" preserveAspectRatio="none">${marks}</svg></div><figcaption>${esc(c.caption)}</figcaption></figure>`;
}

function overlaySet(o: OverlaySet): string {
  const more = o.total > o.cases.length ? `<p class="note">${o.cases.length} of ${o.total} drawn (the most severe first).</p>` : '';
  return `<section data-overlay-id="${esc(o.id)}"><h2>${esc(o.title)} <small>(${o.total})</small></h2>${o.cases.length ? `<div class="cases">${o.cases.map(overlayCase).join('')}</div>` : '<p class="note">none</p>'}${more}</section>`;
}

// Runs in the page: draws each plot spec with Observable Plot. Kept in plain ES2017.
const RENDERER = String.raw`
(function () {
  var report = JSON.parse(document.getElementById('report-data').textContent);
  var palette = ['#4269d0', '#efb118', '#ff725c', '#6cc5b0', '#3ca951', '#ff8ab7', '#a463f2', '#97bbf5'];
  // lines that coincide stay visible: each series has its own dash, width and point symbol
  var dashes = [null, '7 4', '2 3', '10 3 2 3', '1 5'];
  var symbols = ['circle', 'cross', 'square', 'triangle', 'diamond', 'star', 'wye', 'times'];
  // an axis whose values are all integers (N, steps, counts) gets integer ticks only
  function intAxis(vals, axis) {
    if (!vals.length || !vals.every(function (v) { return Number.isInteger(v); })) return axis;
    var lo = d3.min(vals), hi = d3.max(vals);
    var t = d3.ticks(lo, hi, 8).filter(function (v) { return Number.isInteger(v); });
    axis.ticks = t.length ? t : [lo];
    axis.tickFormat = 'd';
    return axis;
  }
  function draw(spec, w) {
    if (spec.kind === 'bars') {
      var grouped = spec.data.some(function (d) { return d.group !== undefined; });
      var opts = { width: w, height: 300, marginBottom: 50, y: intAxis([0].concat(spec.data.map(function (d) { return d.value; })), { label: spec.y_label, grid: true, domain: spec.max ? [0, spec.max] : undefined }), x: { label: null, tickRotate: spec.data.length > 12 ? -30 : 0 }, color: { legend: grouped, range: palette },
        marks: [Plot.barY(spec.data, grouped ? { x: 'group', y: 'value', fill: 'group', fx: 'label', tip: true } : { x: 'label', y: 'value', fill: palette[0], tip: true }), Plot.ruleY([0])] };
      var uniq = function (k) { return Array.from(new Set(spec.data.map(function (d) { return d[k]; }))); };
      if (grouped) { opts.fx = { label: null, domain: uniq('label') }; opts.x = { axis: null, domain: uniq('group') }; opts.color.domain = uniq('group'); }
      else { opts.x.domain = uniq('label'); }
      return Plot.plot(opts);
    }
    if (spec.kind === 'stacked') {
      var totals = d3.rollups(spec.data, function (v) { return d3.sum(v, function (d) { return d.value; }); }, function (d) { return d.label; }).map(function (e) { return e[1]; });
      return Plot.plot({ width: w, height: 300, y: intAxis([0].concat(totals), { label: spec.y_label, grid: true }), x: { label: null, domain: Array.from(new Set(spec.data.map(function (d) { return d.label; }))) }, color: { legend: true, domain: Array.from(new Set(spec.data.map(function (d) { return d.part; }))), range: ['#3ca951', '#efb118', '#ff725c', '#97bbf5'] },
        marks: [Plot.barY(spec.data, { x: 'label', y: 'value', fill: 'part', order: null, tip: true }), Plot.ruleY([0])] });
    }
    if (spec.kind === 'matrix') {
      var cells = [];
      spec.rows.forEach(function (r, i) { spec.cols.forEach(function (c, j) { cells.push({ row: r, col: c, value: spec.values[i][j] }); }); });
      return Plot.plot({ width: Math.min(w, 160 + 140 * spec.cols.length), height: 80 + 70 * spec.rows.length, marginLeft: 130, padding: 0.04, x: { label: spec.col_label, domain: spec.cols, axis: 'top' }, y: { label: spec.row_label, domain: spec.rows }, color: { scheme: 'blues', legend: true },
        marks: [Plot.cell(cells, { x: 'col', y: 'row', fill: 'value', inset: 1, tip: true }), Plot.text(cells, { x: 'col', y: 'row', text: function (d) { return d.value.toFixed(spec.digits); }, fill: function (d) { var lo = d3.min(cells, function (e) { return e.value; }), hi = d3.max(cells, function (e) { return e.value; }); return hi > lo && (d.value - lo) / (hi - lo) > 0.55 ? 'white' : 'black'; } })] });
    }
    if (spec.kind === 'lines') {
      var pts = [];
      var marks = [Plot.ruleY([0])];
      var names = spec.series.map(function (s) { return s.name; });
      spec.series.forEach(function (s, i) {
        var own = s.points.map(function (p) { return { series: s.name, x: p.x, y: p.y, n: p.n }; });
        pts = pts.concat(own);
        var line = { x: 'x', y: 'y', stroke: 'series', strokeWidth: i === 0 ? 3.5 : 1.75 };
        if (dashes[i % dashes.length]) line.strokeDasharray = dashes[i % dashes.length];
        marks.push(Plot.line(own, line));
      });
      marks.push(Plot.dot(pts, { x: 'x', y: 'y', stroke: 'series', symbol: 'series', r: 4, tip: true }));
      if (spec.diagonal) marks.unshift(Plot.line([{ x: 0, y: 0 }, { x: 1, y: 1 }], { x: 'x', y: 'y', stroke: '#999', strokeDasharray: '4 3' }));
      var xs = pts.map(function (p) { return p.x; });
      return Plot.plot({ width: w, height: 340, x: intAxis(spec.diagonal ? [] : xs, { label: spec.x_label, domain: spec.diagonal ? [0, 1] : undefined }), y: { label: spec.y_label, grid: true, domain: spec.diagonal ? [0, 1] : undefined }, color: { legend: true, domain: names, range: palette }, symbol: { domain: names, range: symbols }, marks: marks });
    }
    throw new Error('unknown plot kind ' + spec.kind);
  }
  report.plots.forEach(function (spec) {
    var fig = document.querySelector('figure[data-plot-id="' + spec.id + '"] .chart');
    // as wide as the page allows
    var w = Math.max(320, Math.floor(fig.getBoundingClientRect().width) || 640);
    try { fig.appendChild(draw(spec, w)); fig.parentNode.setAttribute('data-drawn', 'true'); }
    catch (e) { fig.parentNode.setAttribute('data-error', String(e && e.message || e)); fig.textContent = 'plot failed: ' + e; }
  });
  document.documentElement.setAttribute('data-rendered', 'true');
})();
`;

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#1b1e23}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#666;font-size:12px;word-break:break-all}.cards{display:flex;flex-wrap:wrap;gap:10px;margin:16px 0}
.card{border:1px solid #ddd;border-radius:8px;padding:10px 14px;min-width:150px}.card .v{font-size:22px;font-weight:600}
.card .l{color:#444;font-size:12px}.card .sub{color:#888;font-size:11px}figure{margin:16px 0}figcaption{font-weight:600;margin-bottom:6px}
table{border-collapse:collapse;width:100%;font-size:12px;margin:6px 0}th,td{border:1px solid #e2e2e2;padding:4px 6px;text-align:left;vertical-align:top}
.cases{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:14px}.case{margin:0}.case figcaption{font-weight:400;font-size:12px;word-break:break-word}
.shot{position:relative;display:inline-block;max-width:100%;border:1px solid #ccc}.shot img{display:block;max-width:100%;height:auto}
.shot svg{position:absolute;left:0;top:0;width:100%;height:100%}.shot .gold{fill:rgba(60,169,81,.15);stroke:#1f8f3a;stroke-width:2}
.shot .pred-box{fill:none;stroke:#d62728;stroke-width:2;stroke-dasharray:6 3}.shot .pred{fill:none;stroke:#d62728;stroke-width:2}
th{background:#f6f7f9}pre{background:#f6f7f9;border:1px solid #e2e2e2;padding:8px;overflow-x:auto}td.txt{white-space:pre-wrap;word-break:break-word;max-width:420px}.note{color:#555}code{font-size:12px}
`;

export function renderHtml(r: EvalReport): string {
  const lib = plottingLibrary();
  const data = JSON.stringify({ plots: r.plots }).replace(/</g, '\\u003c');
  const metrics = flatMetrics(r.metrics)
    .map(
      ([k, v]) =>
        `<tr><td><code>${esc(k)}</code></td><td data-metric-path="${esc(k)}"${typeof v === 'number' ? ` data-value="${v}"` : ''}>${esc(cellText(v, 100_000))}</td></tr>`,
    )
    .join('');
  const tables = r.tables
    .map((t) => {
      const head = t.columns.map((c) => `<th>${esc(c)}</th>`).join('');
      const rows = t.rows.map((row) => `<tr>${row.map((c) => `<td class="txt">${esc(cellText(c, 1200))}</td>`).join('')}</tr>`).join('');
      const more = t.total > t.rows.length ? `<p class="note">${t.rows.length} of ${t.total} shown (the most severe first).</p>` : '';
      return `<section data-table-id="${esc(t.id)}"><h2>${esc(t.title)} <small>(${t.total})</small></h2>${t.rows.length ? `<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>` : '<p class="note">none</p>'}${more}</section>`;
    })
    .join('');
  const plots = r.plots
    .map((p) => `<figure data-plot-id="${esc(p.id)}" data-kind="${p.kind}"><figcaption>${esc(p.title)}</figcaption><div class="chart"></div></figure>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(r.title)}</title><style>${STYLE}</style></head>
<body>
<h1>${esc(r.title)}</h1>
<div class="meta">${esc(madeBy(r))} · ${esc(r.created)} · ${esc(JSON.stringify(r.inputs))}</div>
<div class="meta">${r.counts.records} records, ${r.counts.skipped} skipped, ${r.counts.invalid} ungradeable</div>
<div class="cards">${r.headline.map(headlineCard).join('')}</div>
<h2>Plots</h2>${plots || '<p class="note">none</p>'}
${tables}
${(r.code ?? []).map((c) => `<section data-code="${esc(c.title)}"><h2>${esc(c.title)}</h2><pre><code>${esc(c.text)}</code></pre></section>`).join('')}
${(r.overlays ?? []).map(overlaySet).join('')}
<h2>Metrics</h2><table><tbody>${metrics}</tbody></table>
${r.notes.length ? `<h2>Notes</h2>${r.notes.map((n) => `<p class="note">${esc(n)}</p>`).join('')}` : ''}
${r.problems.length ? `<h2>Problems (${r.counts.skipped})</h2><ul>${r.problems.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>` : ''}
<script>${lib.d3}</script>
<script>${lib.plot}</script>
<script id="report-data" type="application/json">${data}</script>
<script>${RENDERER}</script>
</body></html>
`;
}
