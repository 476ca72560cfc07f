// Where the public benchmark data is read from: one setting, $ARBITER_DATA, naming the folder that
// holds one subfolder per benchmark (tau-bench/, bfcl/, gsm8k/, prmbench/…); by default
// ../shared/data beside the project's root. `eval`, the tau_bench grader and environment and the
// BFCL environment all find their data here, and a missing folder is one error naming the setting
// and the path it expected.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The environment variable naming the benchmark data folder. */
export const DATA_ENV = 'ARBITER_DATA';

/** The project's root (the folder holding package.json), from this module's place in src/ or dist/. */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The default data folder: ../shared/data beside the project's root. */
export const DEFAULT_DATA_DIR = resolve(projectRoot, '../shared/data');

/** The benchmark data folder: $ARBITER_DATA (resolved against the working directory) when set, else DEFAULT_DATA_DIR. */
export function dataRoot(): string {
  const env = process.env[DATA_ENV];
  return env ? resolve(env) : DEFAULT_DATA_DIR;
}

/** How the data folder was chosen, for messages: `$ARBITER_DATA=/x` or `$ARBITER_DATA unset, so /y`. */
function rootSetting(): string {
  const env = process.env[DATA_ENV];
  return env ? `$${DATA_ENV}=${env}` : `$${DATA_ENV} is unset, so the default ../shared/data beside the project`;
}

export interface DataSpec {
  /** What the data is, for the message ("tau-bench data"). */
  what: string;
  /** Its subfolder of the data folder ("tau-bench"). */
  folder: string;
  /** A file or folder inside it that must exist for the data to count as present ("airline/flights.json"). */
  probe: string;
  /** A family's own variable that names its folder directly, overriding $ARBITER_DATA/<folder>. */
  env?: string;
}

/** The message for data that is not where it was looked for: the path expected and the setting that chose it, once. */
export function missingDataMessage(spec: DataSpec): string {
  const own = spec.env ? process.env[spec.env] : undefined;
  const dir = own ? resolve(own) : join(dataRoot(), spec.folder);
  const setting = own ? `$${spec.env}=${own}` : `${rootSetting()}; set ${DATA_ENV} to the folder holding ${spec.folder}/`;
  return `${spec.what} not found: expected ${join(dir, spec.probe)} (${setting}; README "Benchmark data" says where it comes from)`;
}

/**
 * The folder of one benchmark's data: $<spec.env> when that is set, else $ARBITER_DATA/<spec.folder>.
 * Throws `makeError(message)` (the family's own error class) when spec.probe is not inside it.
 */
export function locateData(spec: DataSpec, makeError: (message: string) => Error = (m) => new Error(m)): string {
  const own = spec.env ? process.env[spec.env] : undefined;
  const dir = own ? resolve(own) : join(dataRoot(), spec.folder);
  if (existsSync(join(dir, spec.probe))) return dir;
  throw makeError(missingDataMessage(spec));
}

/**
 * An input path given on the command line: as given when it exists (or is absolute), else the same
 * relative path inside the data folder when it exists there (`arbiter eval prmbench prmbench/x.jsonl`).
 * Undefined when neither exists; `dataPathMessage` says so.
 */
export function resolveDataPath(path: string): string | undefined {
  if (existsSync(path)) return path;
  if (isAbsolute(path)) return undefined;
  const inData = join(dataRoot(), path);
  return existsSync(inData) ? inData : undefined;
}

/** The message for an input path found neither where it was given nor in the data folder. */
export function dataPathMessage(path: string): string {
  if (isAbsolute(path)) return `cannot read ${path}: no such file`;
  return `cannot read ${path}: no such file here (${resolve(path)}) or in the benchmark data folder (${join(dataRoot(), path)}; ${rootSetting()})`;
}
