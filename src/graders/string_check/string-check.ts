// `string_check` (OpenAI grader schema): compare the rendered input with the reference.
// eq / ne exact; like / ilike substring (case-sensitive / case-insensitive). Score 1 or 0.
import { z } from 'zod';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { renderString } from '../../core/template.js';

/** A short quoted preview of a value for reasons. */
function clip(s: string): string {
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
}

const schema = graderSchema({
  input: z.string(),
  reference: z.string(),
  operation: z.enum(['eq', 'ne', 'like', 'ilike']),
});

export const stringCheck: GraderType<z.infer<typeof schema>> = {
  type: 'string_check',
  summary: 'exact or substring comparison of input and reference (eq, ne, like, ilike)',
  schema,
  capabilities: PURE,
  build(cfg, b) {
    const input = b.template('input', cfg.input);
    const reference = b.template('reference', cfg.reference);
    const op = cfg.operation;
    return (s) => {
      const a = renderString(input, s);
      const r = renderString(reference, s);
      let pass: boolean;
      switch (op) {
        case 'eq':
          pass = a === r;
          break;
        case 'ne':
          pass = a !== r;
          break;
        case 'like':
          pass = a.includes(r);
          break;
        case 'ilike':
          pass = a.toLowerCase().includes(r.toLowerCase());
          break;
      }
      return { score: pass ? 1 : 0, reason: `${op} ${pass ? 'holds' : 'fails'}: input ${clip(a)}, reference ${clip(r)}` };
    };
  },
};
