// The one way tests reach the public benchmark data (README "Benchmark data"): the folder the
// project itself reads ($ARBITER_DATA, default ../shared/data beside the project), and `dataPath`,
// which names the file a test needs and fails at once with one clear message when it is absent
// (a test module calls it at load, so a missing folder fails that file in milliseconds, not by timeout).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_ENV, dataRoot } from '../../dist/io/data.js';

/** The benchmark data folder, as the project resolves it. */
export const DATA_DIR = dataRoot();

/** Thrown when a test's benchmark data is not where the setting says. */
export class MissingData extends Error {
  override name = 'MissingData';
}

/** The absolute path of `rel` inside the data folder; throws MissingData naming the path and the setting when it does not exist. */
export function dataPath(rel: string): string {
  const p = join(DATA_DIR, rel);
  if (existsSync(p)) return p;
  const env = process.env[DATA_ENV];
  const setting = env ? `$${DATA_ENV}=${env}` : `$${DATA_ENV} is unset, so ../shared/data beside the project`;
  throw new MissingData(
    `benchmark data missing: ${p} (${setting}); lay the data out as README "Benchmark data" says, or set ${DATA_ENV} to the folder holding it`,
  );
}
