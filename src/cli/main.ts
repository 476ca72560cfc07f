#!/usr/bin/env node
// The `arbiter` command line: parses arguments and dispatches to the commands in ./commands.
import { readFileSync } from 'node:fs';
import { Command, type Option } from 'commander';
import { commandsFor } from './commands/index.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

// a reader that stops early (`arbiter types | head`) ends the output: exit quietly, as Unix tools do
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const program = new Command();
program
  .name('arbiter')
  .description('A reward engine for RL on language models: grade model outputs into trustworthy rewards.')
  .version(pkg.version)
  .configureOutput({ writeErr: (s) => process.stderr.write(s) })
  .exitOverride((err) => {
    // commander's own exits (--help, --version, usage errors)
    process.exit(err.exitCode === 0 ? 0 : 2);
  });
for (const c of await commandsFor(process.argv[2])) await c.register(program, process.argv.slice(2));
for (const c of allCommands(program)) gitStyleUsageErrors(c);

await program.parseAsync(process.argv);

function allCommands(c: Command): Command[] {
  return [c, ...c.commands.flatMap(allCommands)];
}

/** The command's path as typed (`arbiter env serve`). */
function pathOf(c: Command): string {
  const names: string[] = [];
  for (let at: Command | null = c; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/**
 * Usage errors as git writes them: the error, then one line pointing at the command's help (not
 * the whole help). A misspelt option that leaves a required one unset (`--grdaer`) is reported as
 * the unknown option it is, with commander's "did you mean", rather than as the missing one.
 */
function gitStyleUsageErrors(c: Command): void {
  c.showHelpAfterError(`see '${pathOf(c)} --help'`);
  // commander 14's own hooks (pinned in package.json; test/core/cli-usage.test.ts guards them)
  const hooks = c as unknown as { missingMandatoryOptionValue(o: Option): never; unknownOption(flag: string): never };
  const missing = hooks.missingMandatoryOptionValue.bind(c);
  hooks.missingMandatoryOptionValue = (option) => {
    const unknown = c.args.find((a) => a.startsWith('-') && a !== '-' && !isOptionOf(c, a));
    if (unknown !== undefined) hooks.unknownOption.call(c, unknown);
    return missing(option);
  };
}

function isOptionOf(c: Command, arg: string): boolean {
  if (arg === '--') return true;
  const flag = arg.startsWith('--') ? arg.split('=')[0]! : arg.slice(0, 2);
  for (let at: Command | null = c; at; at = at.parent) {
    if (at.options.some((o) => o.long === flag || o.short === flag)) return true;
    if (flag === '-h' || flag === '--help') return true;
  }
  return false;
}
