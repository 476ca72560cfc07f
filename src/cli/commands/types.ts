// `arbiter types`: list the registered grader types and the error-kind taxonomy.
import type { Command } from 'commander';
import '../../graders/index.js';
import { listGraderTypes } from '../../core/registry.js';
import { ERROR_KINDS } from '../../core/result.js';

export function register(program: Command): void {
  program
    .command('types')
    .description('list grader types and error kinds')
    .action(() => {
      const types = listGraderTypes();
      const w = Math.max(...types.map((t) => t.type.length));
      process.stdout.write('grader types:\n');
      for (const t of types) process.stdout.write(`  ${t.type.padEnd(w)}  ${t.summary}\n`);
      process.stdout.write('\nerror kinds (valid: false):\n');
      const kw = Math.max(...Object.keys(ERROR_KINDS).map((k) => k.length));
      for (const [k, d] of Object.entries(ERROR_KINDS)) process.stdout.write(`  ${k.padEnd(kw)}  ${d}\n`);
    });
}
