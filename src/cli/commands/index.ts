// The CLI's commands. Adding a command = one file in this folder + one line here.
import type { Command } from 'commander';
import * as evaluate from './eval.js';
import * as report from './report.js';
import * as env from './env.js';
import * as score from './score.js';
import * as search from './search.js';
import * as serve from './serve.js';
import * as types from './types.js';
import * as validate from './validate.js';
import * as advantages from './advantages.js';
import * as monitor from './monitor.js';
import * as worker from './worker.js';
import * as sandbox from './sandbox.js';

export const commands: { register(program: Command): void }[] = [
  score,
  validate,
  types,
  serve,
  worker,
  advantages,
  monitor,
  evaluate,
  report,
  search,
  env,
  sandbox,
];
