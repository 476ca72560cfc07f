// The CLI's commands, by name. Adding a command = one file in this folder + one line here. Only the
// command being run is loaded (each pulls in its own part of arbiter); help and unknown names load
// them all.
import type { Command } from 'commander';

interface CommandModule {
  /** Adds the command; `argv` is the command line after the program name (a command may load only what it names). */
  register(program: Command, argv: readonly string[]): void | Promise<void>;
}

const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  score: () => import('./score.js'),
  validate: () => import('./validate.js'),
  types: () => import('./types.js'),
  serve: () => import('./serve.js'),
  worker: () => import('./worker.js'),
  advantages: () => import('./advantages.js'),
  monitor: () => import('./monitor.js'),
  select: () => import('./select.js'),
  pairs: () => import('./pairs.js'),
  eval: () => import('./eval.js'),
  report: () => import('./report.js'),
  search: () => import('./search.js'),
  design: () => import('./design.js'),
  env: () => import('./env.js'),
  sandbox: () => import('./sandbox.js'),
  learn: () => import('./learn.js'),
};

/** The names of every command, in the order help lists them. */
export const COMMAND_NAMES = Object.keys(COMMANDS);

/** The commands to register for a command line whose first argument is `first`. */
export async function commandsFor(first: string | undefined): Promise<CommandModule[]> {
  const names = first !== undefined && Object.hasOwn(COMMANDS, first) ? [first] : COMMAND_NAMES;
  return Promise.all(names.map((n) => COMMANDS[n]!()));
}
