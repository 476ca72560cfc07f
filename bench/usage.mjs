// `--help` (or `-h`) for the benchmark scripts. Each script imports this module first, so it is
// evaluated before the script's other imports and before any work: it prints the script's opening
// comment (what it measures, how, its options and usage line) and exits 0. bench/run.mjs has its own.
import { readFileSync } from 'node:fs';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  const lines = readFileSync(process.argv[1], 'utf8').split('\n');
  const head = [];
  for (const l of lines) {
    if (!l.startsWith('//')) break;
    head.push(l.replace(/^\/\/ ?/, ''));
  }
  console.log(head.join('\n'));
  process.exit(0);
}
