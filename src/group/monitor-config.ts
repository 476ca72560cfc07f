// Monitor configs: the thresholds file of `arbiter monitor --thresholds`, and the monitor config of
// the one-pass pipeline (`arbiter score --monitor M.json`, POST /v1/groups `monitors`, gradeGroup's
// `monitors`): `{thresholds?, seed?, permutations?, format_component?, correct_component?,
// batch_size?}`, validated strictly (an unknown field is refused, naming it).
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { parseJsonText } from '../config/load.js';
import { zodIssues } from '../core/registry.js';
import { DEFAULT_THRESHOLDS, type MonitorOptions, type MonitorThresholds, type PointOptions } from './monitors.js';

const INTEGER_THRESHOLDS = new Set<string>(['min_points', 'collapse_steps']);

export const thresholdSchema = z.strictObject(
  Object.fromEntries(
    Object.keys(DEFAULT_THRESHOLDS).map((k) => [
      k,
      INTEGER_THRESHOLDS.has(k) ? z.number().int().min(1).optional() : z.number().finite().nonnegative().optional(),
    ]),
  ) as Record<keyof MonitorThresholds, z.ZodOptional<z.ZodNumber>>,
);

const monitorSchema = z.strictObject({
  thresholds: thresholdSchema.optional(),
  /** Seed of the random-reward control. */
  seed: z.number().int().optional(),
  /** Random-reward draws (default 20). */
  permutations: z.number().int().min(1).max(10_000).optional(),
  format_component: z.string().min(1).optional(),
  correct_component: z.string().min(1).optional(),
  /** Lines per monitored batch (default: the whole input, or the advantage config's batch_size). */
  batch_size: z.number().int().min(1).max(100_000_000).optional(),
});

/** A validated monitor config. */
export interface MonitorConfig {
  options: MonitorOptions;
  point: PointOptions;
  batchSize?: number;
}

function fail(issues: { path: string; message: string }[], file?: string): never {
  throw new ConfigError(issues, file, 'monitor config');
}

export function parseMonitorConfig(raw: unknown, file?: string): MonitorConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    fail([{ path: '', message: 'a monitor config must be a JSON object, e.g. {"thresholds": {"collapse_std": 0.05}}' }], file);
  const p = monitorSchema.safeParse(raw);
  if (!p.success) fail(zodIssues(p.error, ''), file);
  const c = p.data;
  const options: MonitorOptions = {};
  if (c.thresholds) options.thresholds = c.thresholds as Partial<MonitorThresholds>;
  if (c.seed !== undefined) options.seed = c.seed;
  if (c.permutations !== undefined) options.permutations = c.permutations;
  const point: PointOptions = {};
  if (c.format_component) point.formatComponent = c.format_component;
  if (c.correct_component) point.correctComponent = c.correct_component;
  const out: MonitorConfig = { options, point };
  if (c.batch_size !== undefined) out.batchSize = c.batch_size;
  return out;
}

async function readJson(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ConfigError([{ path: '', message: `cannot read ${what} file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }], file, what);
  }
  return parseJsonText(text, file);
}

export async function loadMonitorConfigFile(file: string): Promise<MonitorConfig> {
  return parseMonitorConfig(await readJson(file, 'monitor config'), file);
}

/** `arbiter monitor --thresholds T.json`: an object of thresholds only. */
export async function loadThresholdsFile(file: string): Promise<Partial<MonitorThresholds>> {
  const raw = await readJson(file, 'monitor thresholds');
  const p = thresholdSchema.safeParse(raw);
  if (!p.success) throw new ConfigError(zodIssues(p.error, ''), file, 'monitor thresholds');
  return p.data as Partial<MonitorThresholds>;
}
