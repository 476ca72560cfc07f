// src/envs/: one folder per environment family, holding everything of its benchmark (world, tools, data, environment, and its grader type of the same name when it has one); importing this module registers every family listed in ./families.ts.
import { getEnv, registerEnv, type EnvFamily } from '../agents/env.js';
import * as families from './families.js';

/** Every family of ./families.ts, by name. */
export const ENV_FAMILIES: readonly EnvFamily[] = Object.values(families).sort((a, b) => a.name.localeCompare(b.name));
for (const f of ENV_FAMILIES) if (!getEnv(f.name)) registerEnv(f);

/** The registry's look-ups, for callers that need the families registered. */
export { getEnv, listEnvs } from '../agents/env.js';

/** The environment of env-server requests that name none, unless the server is told another. */
export const DEFAULT_ENV = 'tau_bench';

export * from './tau_bench/index.js';
export * from './bfcl_multi_turn/index.js';
