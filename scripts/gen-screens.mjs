#!/usr/bin/env node
// Generates GUI grounding data with exact ground truth: renders seeded HTML pages (forms, menus,
// toolbars, dense tables) in headless Chromium (playwright-core driving /usr/bin/chromium) at
// several viewport sizes and device scale factors, screenshots each, and reads every target
// element's box from the DOM (getBoundingClientRect x devicePixelRatio, in screenshot pixels).
// Writes OUT/items.jsonl, one item per target:
//   {id, image, width, height, target: {type, label, box: [x1, y1, x2, y2]}, instruction, screen: {page, viewport, scale}}
// with `image` a path relative to OUT (screens/NAME.png), or a data URL with --inline.
// Same seed, same pages, same items (the boxes are what this machine's Chromium lays out).
//   node scripts/gen-screens.mjs --out DIR [--seed 1] [--pages form,menu,toolbar,table]
//     [--viewports 1280x800,1920x1080] [--scales 1,2] [--targets 6] [--inline] [--chromium PATH]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { seededRandom } from '../dist/core/random.js';

const USAGE =
  'usage: node scripts/gen-screens.mjs --out DIR [--seed N] [--pages form,menu,toolbar,table] [--viewports WxH,...] [--scales S,...] [--targets N] [--inline] [--chromium PATH]';

/** The project's seeded generator (mulberry32, src/core/random.ts): the same sequence for the same seed everywhere. */
const rng = seededRandom;

const WORDS = [
  'Save',
  'Cancel',
  'Submit',
  'Export',
  'Import',
  'Delete',
  'Archive',
  'Share',
  'Print',
  'Refresh',
  'Search',
  'Filter',
  'Sort',
  'Upload',
  'Download',
  'Rename',
  'Copy',
  'Paste',
  'Undo',
  'Redo',
  'Settings',
  'Profile',
  'Logout',
  'Help',
  'Preview',
  'Publish',
  'Invite',
  'Merge',
  'Compare',
  'Schedule',
  'Approve',
  'Reject',
  'Assign',
  'Pin',
  'Mute',
  'Follow',
  'Bookmark',
  'Duplicate',
];
const FIELDS = [
  'Email',
  'Password',
  'First name',
  'Last name',
  'Phone',
  'Company',
  'Street',
  'City',
  'Postcode',
  'Country',
  'Website',
  'Username',
  'Birthday',
  'Job title',
];
const COLUMNS = ['Order', 'Customer', 'Region', 'Product', 'Qty', 'Price', 'Status', 'Date', 'Owner', 'Margin'];
const CHECKS = ['Remember me', 'Subscribe to news', 'Accept terms', 'Two-factor login', 'Dark mode', 'Weekly digest'];

function pick(r, list, n) {
  const a = [...list];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, n);
}

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
/** A target element's attributes: its type and label, read back from the DOM with its box. */
const tgt = (type, label) => `data-target="${esc(type)}" data-label="${esc(label)}"`;

const STYLE = `body{margin:0;font:14px/1.3 "DejaVu Sans",sans-serif;color:#222;background:#fafafa}
.bar{display:flex;flex-wrap:wrap;gap:6px;padding:8px;background:#e9edf2;border-bottom:1px solid #ccd}
button{font:inherit;padding:5px 10px;border:1px solid #99a;border-radius:4px;background:#fff}
.icon{width:28px;height:28px;padding:0;display:inline-flex;align-items:center;justify-content:center}
form{padding:16px;display:grid;grid-template-columns:140px 260px;gap:10px 12px;align-items:center}
input[type=text]{font:inherit;padding:4px 6px;border:1px solid #99a}
nav{display:flex;gap:0}nav ul{list-style:none;margin:0;padding:4px 0;border:1px solid #bbc;background:#fff;min-width:150px}
nav li{padding:5px 14px}table{border-collapse:collapse;margin:10px;font-size:12px}td,th{border:1px solid #ccd;padding:2px 6px}
a{color:#1a55c4}`;

function formPage(r) {
  const fields = pick(r, FIELDS, 4 + Math.floor(r() * 4));
  const checks = pick(r, CHECKS, 2);
  const buttons = pick(r, WORDS, 2);
  const rows = fields.map((f) => `<label>${esc(f)}</label><input type="text" placeholder="${esc(f)}" ${tgt('input', f)}>`).join('');
  const cb = checks.map((c) => `<span></span><label><input type="checkbox" ${tgt('checkbox', c)}> ${esc(c)}</label>`).join('');
  const bt = `<span></span><span>${buttons.map((b) => `<button ${tgt('button', b)}>${esc(b)}</button>`).join(' ')}</span>`;
  return `<h2 style="margin:12px 16px">Account details</h2><form onsubmit="return false">${rows}${cb}${bt}</form>`;
}

function menuPage(r) {
  const heads = pick(r, ['File', 'Edit', 'View', 'Insert', 'Format', 'Tools', 'Window'], 4);
  const items = pick(r, WORDS, 4 * 5);
  const cols = heads
    .map(
      (h, i) =>
        `<div><div style="padding:6px 14px;font-weight:bold" ${tgt('menu', h)}>${esc(h)}</div><ul>${items
          .slice(i * 5, i * 5 + 5)
          .map((it) => `<li ${tgt('menuitem', it)}>${esc(it)}</li>`)
          .join('')}</ul></div>`,
    )
    .join('');
  const links = pick(r, ['Docs', 'Pricing', 'Blog', 'Status', 'Careers', 'Contact'], 3);
  return `<nav>${cols}</nav><p style="margin:16px">${links.map((l) => `<a href="#" ${tgt('link', l)}>${esc(l)}</a>`).join(' · ')}</p>`;
}

function toolbarPage(r) {
  const words = pick(r, WORDS, 10);
  const glyphs = pick(
    r,
    [
      ['Bold', 'B'],
      ['Italic', 'I'],
      ['Underline', 'U'],
      ['Strike', 'S'],
      ['Quote', '❝'],
      ['List', '☰'],
      ['Link', '&'],
      ['Star', '★'],
    ],
    5,
  );
  const icons = glyphs.map(([name, g]) => `<button class="icon" title="${esc(name)}" ${tgt('icon', name)}>${esc(g)}</button>`).join('');
  const buttons = words.map((w) => `<button ${tgt('button', w)}>${esc(w)}</button>`).join('');
  return `<div class="bar">${icons}</div><div class="bar">${buttons}</div><div style="padding:16px;height:300px;background:#fff;margin:12px;border:1px solid #ddd">Document</div>`;
}

function tablePage(r) {
  const cols = pick(r, COLUMNS, 6 + Math.floor(r() * 3));
  const nRows = 14 + Math.floor(r() * 10);
  const head = `<tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
  let body = '';
  for (let i = 1; i <= nRows; i++) {
    body += `<tr>${cols
      .map((c, j) => {
        const v = j === 0 ? `#${1000 + i}` : String(Math.floor(r() * 9000) + 100);
        return `<td ${tgt('cell', `row ${i}, column ${c}`)}>${esc(v)}</td>`;
      })
      .join('')}</tr>`;
  }
  return `<table>${head}${body}</table>`;
}

const PAGES = { form: formPage, menu: menuPage, toolbar: toolbarPage, table: tablePage };

function instruction(type, label) {
  switch (type) {
    case 'input':
      return `Click the "${label}" field.`;
    case 'checkbox':
      return `Tick the "${label}" checkbox.`;
    case 'menu':
      return `Open the "${label}" menu.`;
    case 'menuitem':
      return `Click the "${label}" menu item.`;
    case 'link':
      return `Follow the "${label}" link.`;
    case 'icon':
      return `Click the "${label}" icon.`;
    case 'cell':
      return `Click the table cell at ${label}.`;
    default:
      return `Click the "${label}" ${type}.`;
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      seed: { type: 'string', default: '1' },
      pages: { type: 'string', default: 'form,menu,toolbar,table' },
      viewports: { type: 'string', default: '1280x800,1920x1080' },
      scales: { type: 'string', default: '1,2' },
      targets: { type: 'string', default: '6' },
      inline: { type: 'boolean', default: false },
      chromium: { type: 'string', default: '/usr/bin/chromium' },
    },
  });
  /** @type {(m: string) => never} */
  const fail = (m) => {
    process.stderr.write(`gen-screens: ${m}\n${USAGE}\n`);
    process.exit(2);
  };
  const out = values.out ?? fail('--out is required');
  const seed = Number(values.seed);
  const perPage = Number(values.targets);
  if (!Number.isInteger(seed)) fail('--seed must be an integer');
  if (!Number.isInteger(perPage) || perPage < 1) fail('--targets must be a positive integer');
  const kinds = values.pages.split(',');
  for (const k of kinds) if (!Object.hasOwn(PAGES, k)) fail(`unknown page kind "${k}" (one of ${Object.keys(PAGES).join(', ')})`);
  const viewports = values.viewports.split(',').map((v) => {
    const m = /^(\d+)x(\d+)$/.exec(v);
    if (!m) fail(`bad viewport "${v}" (WIDTHxHEIGHT)`);
    return { width: Number(m[1]), height: Number(m[2]) };
  });
  const scales = values.scales.split(',').map(Number);
  if (!scales.every((s) => s > 0 && s <= 4)) fail('--scales must be numbers in (0, 4]');

  mkdirSync(join(out, 'screens'), { recursive: true });
  const browser = await chromium.launch({
    executablePath: values.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none', '--disable-lcd-text', '--no-first-run', '--disable-background-networking'],
  });
  const lines = [];
  try {
    for (const kind of kinds) {
      for (const vp of viewports) {
        for (const scale of scales) {
          // one page per (kind, viewport, scale); its content depends on the seed and the kind only,
          // so the same page is seen at every resolution and zoom
          const r = rng(seed * 7919 + kinds.indexOf(kind));
          const html = `<!doctype html><html><head><meta charset="utf-8"><style>${STYLE}</style></head><body>${PAGES[kind](r)}</body></html>`;
          const ctx = await browser.newContext({ viewport: vp, deviceScaleFactor: scale });
          const page = await ctx.newPage();
          await page.setContent(html);
          const name = `${kind}-${vp.width}x${vp.height}@${scale}x`;
          const png = await page.screenshot({ type: 'png' });
          const found = await page.$$eval('[data-target]', (els) =>
            els.map((e) => {
              const b = e.getBoundingClientRect();
              const d = /** @type {{ devicePixelRatio: number }} */ (/** @type {unknown} */ (globalThis)).devicePixelRatio;
              return {
                type: e.getAttribute('data-target'),
                label: e.getAttribute('data-label'),
                box: [b.left * d, b.top * d, b.right * d, b.bottom * d],
                dpr: d,
              };
            }),
          );
          await ctx.close();
          const width = vp.width * scale;
          const height = vp.height * scale;
          // targets wholly on the screenshot, in a seeded choice
          const visible = found.filter(
            (t) => t.box[0] >= 0 && t.box[1] >= 0 && t.box[2] <= width && t.box[3] <= height && t.box[2] > t.box[0] && t.box[3] > t.box[1],
          );
          const chosen = pick(
            rng(seed * 104729 + kinds.indexOf(kind)),
            visible.map((_, i) => i),
            Math.min(perPage, visible.length),
          ).sort((a, b) => a - b);
          const image = values.inline ? `data:image/png;base64,${png.toString('base64')}` : `screens/${name}.png`;
          if (!values.inline) writeFileSync(join(out, image), png);
          for (const i of chosen) {
            const t = visible[i];
            lines.push(
              JSON.stringify({
                id: `${name}#${i}`,
                image,
                width,
                height,
                target: { type: t.type, label: t.label, box: t.box },
                instruction: instruction(t.type, t.label),
                screen: { page: kind, viewport: `${vp.width}x${vp.height}`, scale },
              }),
            );
          }
        }
      }
    }
  } finally {
    await browser.close();
  }
  writeFileSync(join(out, 'items.jsonl'), lines.map((l) => `${l}\n`).join(''));
  process.stdout.write(`${lines.length} items in ${join(out, 'items.jsonl')}\n`);
}

await main();
