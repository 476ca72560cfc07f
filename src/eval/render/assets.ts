// The plotting library bundled into every HTML report: Observable Plot and its d3 dependency, read
// from their published UMD builds in node_modules, so a report opens without any network.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let cached: { d3: string; plot: string } | undefined;

function umd(pkg: string, rel: string): string {
  const req = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = req.resolve(pkg);
  } catch {
    throw new Error(`cannot find the package ${pkg} (needed for HTML reports); run npm ci`);
  }
  // d3 resolves to dist/d3.mjs and Plot to src/index.js: walk up to the package root
  let dir = dirname(entry);
  for (let i = 0; i < 4; i++) {
    try {
      return readFileSync(join(dir, rel), 'utf8');
    } catch {
      dir = dirname(dir);
    }
  }
  throw new Error(`cannot read ${pkg}/${rel} (needed for HTML reports); run npm ci`);
}

/** Script text safe to inline in <script>: no "</script" can close the element early. */
function inlineSafe(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

export function plottingLibrary(): { d3: string; plot: string } {
  cached ??= { d3: inlineSafe(umd('d3', 'dist/d3.min.js')), plot: inlineSafe(umd('@observablehq/plot', 'dist/plot.umd.min.js')) };
  return cached;
}
