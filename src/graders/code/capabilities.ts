// Capabilities of the `code` and `python` grader types: sandboxed code, or `unsafe` when the config
// turns the sandbox off, raises a sandbox limit above the language's default (more memory, time,
// processes or disk than the server's own graders get unless their operator configured it), or
// raises an input cap (max_bytes, max_tests) above the type's default.
import { raisedCaps, sandboxedCode, type CapabilityUse } from '../../core/capabilities.js';
import { LANGUAGES, type LanguageName } from '../../sandbox/languages.js';
import { DEFAULT_LIMITS, mergeLimits, runMemoryBytes, type SandboxLimits } from '../../sandbox/limits.js';
import { toSandboxLimits, type LimitsConfig } from './config.js';

const FIELD: Partial<Record<keyof SandboxLimits, keyof NonNullable<LimitsConfig>>> = {
  wallMs: 'time_ms',
  cpuSeconds: 'cpu_seconds',
  memoryBytes: 'memory_mb',
  processes: 'processes',
  outputBytes: 'output_bytes',
  fileSizeBytes: 'file_size_bytes',
  openFiles: 'open_files',
  tmpBytes: 'tmp_mb',
  runMemoryBytes: 'run_memory_mb',
};

function raised(l: LimitsConfig, field: string, defaults: SandboxLimits): CapabilityUse[] {
  if (!l) return [];
  const got = toSandboxLimits(l);
  const out: CapabilityUse[] = [];
  for (const [k, name] of Object.entries(FIELD) as [keyof SandboxLimits, keyof NonNullable<LimitsConfig>][]) {
    const v = got[k];
    // the run's total bound has no default of its own: unset, it is memory_mb + tmp_mb
    const d = k === 'runMemoryBytes' ? runMemoryBytes(defaults) : defaults[k];
    if (typeof v !== 'number' || typeof d !== 'number' || v <= d) continue;
    // cpu_seconds follows time_ms when it is not given itself
    const f = l[name] !== undefined ? name : k === 'cpuSeconds' ? 'time_ms' : name;
    if (out.some((u) => u.field === `${field}.${f}`)) continue;
    out.push({
      capability: 'unsafe',
      field: `${field}.${f}`,
      reason: `raises the sandbox limit ${f} above its default (${k.endsWith('Bytes') ? `${d / 1024 / 1024} MiB` : d})`,
    });
  }
  return out;
}

/** Input caps of the `code` type (larger programs, more tests), by config field. */
export const CODE_CAPS = { max_bytes: 256 * 1024, max_tests: 1000 } as const;
/** Input cap of the `python` type (sample + item bytes). */
export const PYTHON_CAPS = { max_bytes: 8 * 1024 * 1024 } as const;

/** Capabilities of a `code` or `python` config; `caps` are its type's input caps (raised ones are `unsafe`). */
export function codeCapabilities(
  cfg: {
    unsafe_no_sandbox?: boolean;
    language?: string;
    limits?: LimitsConfig;
    compile_limits?: LimitsConfig;
  },
  caps: Readonly<Record<string, number>>,
): CapabilityUse[] {
  const lang = LANGUAGES[(cfg.language ?? 'python') as LanguageName] ?? LANGUAGES.python;
  return [
    ...sandboxedCode(cfg.unsafe_no_sandbox, 'unsafe_no_sandbox'),
    ...raisedCaps(cfg, caps),
    ...raised(cfg.limits, 'limits', mergeLimits(DEFAULT_LIMITS, lang.limits)),
    ...raised(cfg.compile_limits, 'compile_limits', mergeLimits(DEFAULT_LIMITS, lang.compileLimits)),
  ];
}
