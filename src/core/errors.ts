// Configuration errors: every problem names the field path (e.g. `graders.acc.operation`) and what is wrong.

export interface ConfigIssue {
  /** Dotted path of the field inside the grader config ("" for the root). */
  path: string;
  message: string;
  /** Where the field is in the file (1-based), when the config came from a file's text. */
  line?: number;
  column?: number;
}

export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  /** File the config came from, when known. */
  readonly file?: string;
  /** `what` names the kind of config in the message (default "grader config"). */
  constructor(issues: ConfigIssue[], file?: string, what?: string) {
    super(formatIssues(issues, file, what));
    this.name = 'ConfigError';
    this.issues = issues;
    this.file = file;
  }
}

export function formatIssues(issues: ConfigIssue[], file?: string, what = 'grader config'): string {
  const head = file ? `invalid ${what} in ${file}` : `invalid ${what}`;
  const lines = issues.map((i) => `  - ${file && i.line !== undefined ? `${file}:${i.line}:${i.column ?? 1}: ` : ''}${i.path || '(root)'}: ${i.message}`);
  return `${head}:\n${lines.join('\n')}`;
}

export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}
