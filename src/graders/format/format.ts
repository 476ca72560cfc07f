// `format`: does the output respect a required format? One check per grader:
//   check "regex" — the pattern is found (match "search") or matches the whole input ("full");
//   check "tags"  — required tag structure, e.g. <think>...</think><answer>...</answer>, with
//                   counts, order, nesting and text outside the tags;
//   check "json"  — the output is valid JSON and, with `schema`, conforms to that JSON Schema.
// A failed format is a valid result with score 0 (or a fraction for tags with scoring "fraction")
// and a reason naming what is wrong; oversized or too deeply nested input is the response's doing:
// a valid 0 with the reason (ResponseFault).
import { raisedCaps } from '../../core/capabilities.js';
import { z } from 'zod';
import { GradeFailure, ResponseFault } from '../../core/result.js';
import { graderSchema, type GraderType, PURE, unsafeSwitch } from '../../core/registry.js';
import { renderString, renderValue, type Template } from '../../core/template.js';
import type { GradeInput } from '../../core/sample.js';
import {
  applyThink,
  extractSchema,
  FORMAT_EXTRACT_ALIAS,
  neverCloses,
  readText,
  TEXT_SOURCES,
  parseJsonText,
  partialCreditAlias,
  partialCreditField,
  resolveExtract,
} from '../../extract/index.js';
import { checkDepth, compileSchema, describeErrors } from './json-check.js';
import { compileLinear, type LinearRegex } from './linear-regex.js';
import { checkTags, type TagSpec } from './tags.js';

const common = {
  /** Text to check; default {{sample.output_text}} (json: sample.output_json when present). */
  input: z.string().optional(),
  /** Hard limit on input characters (default 1,000,000). */
  max_chars: z.number().int().positive().optional(),
};

const regexSchema = graderSchema({
  ...common,
  check: z.literal('regex'),
  pattern: z.string(),
  flags: z
    .string()
    .regex(/^[imsu]*$/, 'flags may only contain i, m, s, u')
    .optional(),
  match: z.enum(['search', 'full']).optional(),
  /** Score 1 when the pattern does NOT match. */
  negate: z.boolean().optional(),
  /** Obsolete (patterns always run on the linear-time engine): false is accepted, true refused. */
  allow_unsafe_regex: z.boolean().optional(),
  /** think `keep` (default) or `strip` (match the answer after the reasoning); from `whole` (default) or `fenced` (the last fenced block, else the whole input). */
  extract: extractSchema(TEXT_SOURCES),
});

const tagSpec = z.union([
  z.string().regex(/^[A-Za-z_][\w.:-]*$/, 'a tag name'),
  z.strictObject({
    name: z.string().regex(/^[A-Za-z_][\w.:-]*$/, 'a tag name'),
    min: z.number().int().min(0).optional(),
    max: z.number().int().min(0).nullable().optional(),
  }),
]);

const tagsSchema = graderSchema({
  ...common,
  check: z.literal('tags'),
  tags: z.array(tagSpec).min(1),
  order: z.boolean().optional(),
  outside: z.enum(['whitespace', 'any']).optional(),
  nested: z.boolean().optional(),
  /** true: score = fraction of tag checks passed; false (default): 1 only when all pass. Deprecated: scoring all|fraction. */
  partial_credit: partialCreditField,
});

const jsonSchema = graderSchema({
  ...common,
  check: z.literal('json'),
  schema: z.union([z.record(z.string(), z.unknown()), z.boolean()]).optional(),
  /** from `whole` (default) or `fenced` (the first ```json / untagged fence, else the whole text); think `keep` (default) or `strip`. */
  extract: extractSchema(['whole', 'fenced'] as const),
  max_depth: z.number().int().positive().optional(),
});

const schema = z.discriminatedUnion('check', [regexSchema, tagsSchema, jsonSchema]);
type Config = z.infer<typeof schema>;

const DEFAULT_MAX_CHARS = 1_000_000;
const DEFAULT_MAX_DEPTH = 256;

function limit(text: string, max: number): void {
  if (text.length > max) throw new ResponseFault('limit_exceeded', `input has ${text.length} characters (limit max_chars=${max})`);
}

export const format: GraderType<Config> = {
  type: 'format',
  summary: 'output format: regex match, required tag structure (<think>/<answer>), valid JSON / JSON Schema',
  schema,
  aliases: [FORMAT_EXTRACT_ALIAS, partialCreditAlias('scoring', 'all', 'fraction')],
  capabilities: (cfg) =>
    cfg.check === 'regex' && cfg.allow_unsafe_regex
      ? unsafeSwitch('allow_unsafe_regex', 'accepts regexes that can backtrack exponentially, stalling the process')
      : [...PURE, ...raisedCaps(cfg, { max_chars: DEFAULT_MAX_CHARS, max_depth: DEFAULT_MAX_DEPTH })],
  // linear, but a regex automaton or a schema over 1,000,000 characters can still take seconds:
  // under a budget these run in a killable worker; tag checks stay on the event loop (fast)
  cpu_heavy: (cfg) => cfg.check === 'regex' || (cfg.check === 'json' && cfg.schema !== undefined),
  build(cfg, b) {
    const maxChars = cfg.max_chars ?? DEFAULT_MAX_CHARS;
    const input: Template | undefined = cfg.input !== undefined ? b.template('input', cfg.input) : undefined;
    const text = (s: GradeInput): string => {
      if (input) return renderString(input, s);
      if (typeof s.sample.output_text !== 'string')
        throw new GradeFailure('template_error', 'missing variable {{sample.output_text}}: the sample has no output_text (set "input" to choose the field)');
      return s.sample.output_text;
    };

    if (cfg.check === 'regex') {
      if (cfg.allow_unsafe_regex) {
        b.issue('allow_unsafe_regex', 'no longer needed: patterns run on the linear-time RE2 engine, where no pattern can backtrack (remove the field)');
      }
      let re: LinearRegex;
      try {
        re = compileLinear(cfg.pattern, cfg.flags ?? '');
      } catch (e) {
        b.fail('pattern', (e as Error).message);
      }
      const negate = cfg.negate ?? false;
      const full = cfg.match === 'full';
      const extract = resolveExtract(cfg.extract, { think: 'keep', from: 'whole' });
      return (s) => {
        const raw = text(s);
        limit(raw, maxChars);
        const got = readText(raw, extract);
        // no answer after the reasoning: 0, for `negate` too (giving nothing is not "not matching")
        if (!got.ok) return { score: 0, reason: neverCloses('no answer to match'), metadata: { extracted: got.read } };
        const t = got.text;
        // full: the engine anchors the match at both ends of the input, whatever the m flag says
        const at = full ? (re.full(t) ? 0 : -1) : re.search(t);
        const pass = at >= 0 !== negate;
        const reason = at >= 0 ? `pattern matched at ${at}` : full ? 'the whole input does not match the pattern' : 'pattern not found';
        return got.changed ? { score: pass ? 1 : 0, reason, metadata: { extracted: got.read } } : { score: pass ? 1 : 0, reason };
      };
    }

    if (cfg.check === 'tags') {
      const specs: TagSpec[] = cfg.tags.map((t) =>
        typeof t === 'string'
          ? { name: t, min: 1, max: 1 }
          : { name: t.name, min: t.min ?? 1, max: t.max === null ? Infinity : (t.max ?? Math.max(1, t.min ?? 1)) },
      );
      specs.forEach((sp, i) => {
        if (sp.max < sp.min) b.issue(`tags[${i}].max`, `max (${sp.max}) is below min (${sp.min})`);
        if (specs.findIndex((x) => x.name === sp.name) !== i) b.issue(`tags[${i}]`, `tag <${sp.name}> is listed twice`);
      });
      const opts = { order: cfg.order ?? true, outside: cfg.outside ?? 'whitespace', nested: cfg.nested ?? false } as const;
      const fraction = cfg.partial_credit === true;
      return (s) => {
        const t = text(s);
        limit(t, maxChars);
        const { checks, blocks } = checkTags(t, specs, opts);
        const passed = checks.filter((c) => c.ok).length;
        const failed = checks.filter((c) => !c.ok);
        const score = fraction ? passed / checks.length : failed.length ? 0 : 1;
        return {
          score,
          reason: failed.length ? failed.map((c) => c.detail).join('; ') : 'tag structure is as required',
          metadata: { checks: Object.fromEntries(checks.map((c) => [c.requirement, c.ok])), tags_found: blocks.length },
        };
      };
    }

    // check === 'json'
    let validate: ReturnType<typeof compileSchema> | undefined;
    if (cfg.schema !== undefined) {
      try {
        validate = compileSchema(cfg.schema);
      } catch (e) {
        b.fail('schema', `invalid JSON Schema: ${(e as Error).message}`);
      }
    }
    const extract = resolveExtract(cfg.extract, { think: 'keep', from: 'whole' });
    const maxDepth = cfg.max_depth ?? DEFAULT_MAX_DEPTH;
    return (s) => {
      let value: unknown;
      const raw = input ? renderValue(input, s) : s.sample.output_json !== undefined ? s.sample.output_json : text(s);
      if (typeof raw === 'string') {
        limit(raw, maxChars);
        const body = applyThink(raw, extract.think);
        if (body === undefined) return { score: 0, reason: neverCloses('no JSON given') };
        const p = parseJsonText(body, extract.from);
        if (!p.ok) return { score: 0, reason: p.reason };
        value = p.value;
      } else {
        value = raw;
      }
      checkDepth(value, maxDepth);
      if (!validate) return { score: 1, reason: 'valid JSON' };
      let ok: boolean;
      try {
        ok = validate(value) as boolean;
      } catch (e) {
        throw new GradeFailure('limit_exceeded', `schema validation could not finish: ${(e as Error).message}`);
      }
      if (ok) return { score: 1, reason: 'valid JSON, conforms to the schema' };
      const errors = describeErrors(validate.errors);
      return { score: 0, reason: `does not conform to the schema: ${errors.join('; ')}`, metadata: { schema_errors: errors } };
    };
  },
};
