// `arbiter validate`: check grader files and print every problem with its field path.
import type { Command } from 'commander';
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import { locatorFor, readGraderFile } from '../../config/load.js';
// every type: a config's problems are reported against all of them
import '../../graders/index.js';
import { validateGrader } from '../../core/registry.js';
import { die, EXIT } from '../exit.js';
import { formatIssues } from '../../core/errors.js';

export function register(program: Command): void {
  program
    .command('validate')
    .description('validate grader config files; exit 0 when all are valid, 3 when any has problems')
    .argument('<files...>', 'grader JSON files')
    .action(async (files: string[]) => {
      try {
        let bad = 0;
        for (const file of files) {
          let issues: ReturnType<typeof validateGrader>;
          const notes: ConfigIssue[] = [];
          try {
            const config = await readGraderFile(file);
            issues = validateGrader(config, { file, notes, locate: locatorFor(config) });
          } catch (e) {
            if (!(e instanceof ConfigError)) throw e;
            issues = e.issues;
          }
          for (const n of notes)
            process.stderr.write(`${file}${n.line !== undefined ? `:${n.line}:${n.column}` : ''}: note: ${n.path || '(root)'}: ${n.message}\n`);
          if (issues.length) {
            bad++;
            process.stderr.write(formatIssues(issues, file) + '\n');
          } else {
            process.stdout.write(`${file}: ok\n`);
          }
        }
        process.exit(bad ? EXIT.INVALID : EXIT.OK);
      } catch (e) {
        die(e);
      }
    });
}
