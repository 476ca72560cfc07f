// `arbiter validate`: check grader (or advantage, or monitor) config files and print every problem
// with its field path.
import { type Command, Option } from 'commander';
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import { locatorFor, readGraderFile } from '../../config/load.js';
// every type: a config's problems are reported against all of them
import '../../graders/index.js';
import { validateGrader } from '../../core/registry.js';
import { die, EXIT } from '../exit.js';
import { formatIssues } from '../../core/errors.js';
import { loadAdvantageConfigFile } from '../../group/config.js';
import { loadMonitorConfigFile } from '../../group/monitor-config.js';

const KINDS = ['grader', 'advantages', 'monitor'] as const;
type Kind = (typeof KINDS)[number];

/** Problems of one file read as `kind`; grader notes are pushed onto `notes`. */
async function problems(file: string, kind: Kind, notes: ConfigIssue[]): Promise<ConfigIssue[]> {
  try {
    if (kind === 'advantages') await loadAdvantageConfigFile(file);
    else if (kind === 'monitor') await loadMonitorConfigFile(file);
    else {
      const config = await readGraderFile(file);
      const issues = validateGrader(config, { file, notes, locate: locatorFor(config) });
      // a file of another kind is named as such rather than left at "type is missing"
      if (issues.length && config && typeof config === 'object' && !('type' in config) && 'estimator' in config)
        issues.push({ path: '', message: 'this looks like an advantage config: validate it with --as advantages' });
      return issues;
    }
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.issues;
  }
}

export function register(program: Command): void {
  program
    .command('validate')
    .description('validate config files; exit 0 when all are valid, 3 when any has problems')
    .argument('<files...>', 'JSON config files')
    .addOption(
      new Option('--as <kind>', 'what the files are: grader configs, advantage configs (as for arbiter advantages) or monitor configs')
        .choices(KINDS)
        .default('grader'),
    )
    .action(async (files: string[], o: { as: Kind }) => {
      try {
        let bad = 0;
        for (const file of files) {
          const notes: ConfigIssue[] = [];
          const issues = await problems(file, o.as, notes);
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
