// Every environment family, one line each: the family's folder exports its EnvFamily, and ./index.ts registers whatever this module exports. Adding a family = its folder + one line here.
export { tauBenchEnv } from './tau_bench/index.js';
export { bfclMultiTurnEnv } from './bfcl_multi_turn/index.js';
export { frozenLakeEnv } from './frozenlake/index.js';
