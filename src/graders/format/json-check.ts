// JSON checks: the output is parsed by the extraction layer (src/extract/json.ts), then held to
// hard limits on nesting depth and validate it against a JSON Schema with Ajv (draft-07 by default,
// 2019-09 / 2020-12 when the schema's `$schema` says so; `format` keywords via ajv-formats).
import type { Ajv, ValidateFunction, ErrorObject } from 'ajv';
import { lazyRequire } from '../../core/lazy.js';
import { ResponseFault } from '../../core/result.js';
import { compileLinear } from './linear-regex.js';

// Ajv and ajv-formats (CommonJS) load on the first schema compiled, not at startup.
const ajv07 = lazyRequire<typeof import('ajv')>('ajv');
const ajv2019 = lazyRequire<typeof import('ajv/dist/2019.js')>('ajv/dist/2019');
const ajv2020 = lazyRequire<typeof import('ajv/dist/2020.js')>('ajv/dist/2020');
const ajvFormats = lazyRequire<{ default: (ajv: Ajv) => Ajv }>('ajv-formats');

/** Schema `pattern` / `patternProperties` run on the linear-time engine, like format regexes. */
const linearRegExp = Object.assign((pattern: string, flags: string) => compileLinear(pattern, flags), { code: 'linearRegExp' });

/** Compiles a schema; throws Error with Ajv's message when the schema itself is invalid. */
export function compileSchema(schema: unknown): ValidateFunction {
  const uri = schema && typeof schema === 'object' ? String((schema as { $schema?: unknown }).$schema ?? '') : '';
  const opts = { allErrors: true, strict: false, validateFormats: true, code: { regExp: linearRegExp } } as const;
  const ajv: Ajv = uri.includes('2020-12') ? new (ajv2020().Ajv2020)(opts) : uri.includes('2019-09') ? new (ajv2019().Ajv2019)(opts) : new (ajv07().Ajv)(opts);
  ajvFormats().default(ajv);
  return ajv.compile(schema as object);
}

/** Depth of nested arrays/objects, computed iteratively; past `max` the response is at fault (a valid 0). */
export function checkDepth(value: unknown, max: number): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) throw new ResponseFault('limit_exceeded', `JSON nesting depth exceeds max_depth=${max}`);
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
  }
}

export function describeErrors(errors: readonly ErrorObject[] | null | undefined, limit = 5): string[] {
  return (errors ?? []).slice(0, limit).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`);
}
