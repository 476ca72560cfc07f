#!/usr/bin/env node
// The `arbiter` command line: parses arguments and dispatches to the commands in ./commands.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
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
  .showHelpAfterError()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) })
  .exitOverride((err) => {
    // commander's own exits (--help, --version, usage errors)
    process.exit(err.exitCode === 0 ? 0 : 2);
  });
for (const c of await commandsFor(process.argv[2])) await c.register(program, process.argv.slice(2));

await program.parseAsync(process.argv);
