// Loads a dependency on first use instead of at startup. Several libraries (the openai SDK,
// better-sqlite3, ajv, mathjs, fastify) cost 0.1–1 s each to import; a command that never
// uses them should not pay for them.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Returns a function that `require`s `id` the first time it is called and caches the module. */
export function lazyRequire<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= require(id) as T);
}
