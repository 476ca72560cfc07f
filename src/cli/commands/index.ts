// The CLI's commands. Adding a command = one file in this folder + one line here.
import type { Command } from 'commander';
import * as env from './env.js';
import * as score from './score.js';
import * as serve from './serve.js';
import * as types from './types.js';
import * as validate from './validate.js';

export const commands: { register(program: Command): void }[] = [score, validate, types, serve, env];
