// src/envs/frozenlake/: RAGEN/StarPO's FrozenLake as an environment family (seeded maps with a path, text moves, slippery ice, goal reward).
export { frozenLakeEnv, FrozenLakeEpisode, parseAnswer } from './env.js';
export type { FrozenLakeOptions } from './env.js';
export { drawMap, hasPath, MOVES, render } from './map.js';
export type { LakeMap } from './map.js';
