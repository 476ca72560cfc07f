// `string_check` (OpenAI grader schema): compare the rendered input with the reference.
// eq / ne exact; like / ilike substring (case-sensitive / case-insensitive). Score 1 or 0.
// The input is read through the extraction layer (`extract`: reasoning stripped by default, the
// whole text or its last fenced block); the reference is compared as rendered.
import { z } from 'zod';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { jsonString } from '../../core/json.js';
import { renderString } from '../../core/template.js';
import { extractSchema, neverCloses, readText, resolveExtract, TEXT_SOURCES } from '../../extract/index.js';

/** A short quoted preview of a value for reasons (an ASCII ellipsis: one non-ASCII character makes the whole reply a two-byte string, which costs a conversion to write). */
function clip(s: string): string {
  return jsonString(s.length > 40 ? `${s.slice(0, 40)}...` : s);
}

const schema = graderSchema({
  input: z.string(),
  reference: z.string(),
  operation: z.enum(['eq', 'ne', 'like', 'ilike']),
  /** think `strip` (default: the reasoning is not the answer) or `keep`; from `whole` (default) or `fenced` (the last fenced block, else the whole input). */
  extract: extractSchema(TEXT_SOURCES),
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
    const extract = resolveExtract(cfg.extract, { think: 'strip', from: 'whole' });
    return (s) => {
      const got = readText(renderString(input, s), extract);
      const r = renderString(reference, s);
      // no answer after the reasoning: 0 whatever the operation (`ne` too: giving no answer is not rewarded as differing)
      if (!got.ok) return { score: 0, reason: neverCloses('no answer given'), metadata: { extracted: got.read } };
      const a = got.text;
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
      const reason = `${op} ${pass ? 'holds' : 'fails'}: input ${clip(a)}, reference ${clip(r)}`;
      return got.changed ? { score: pass ? 1 : 0, reason, metadata: { extracted: got.read } } : { score: pass ? 1 : 0, reason };
    };
  },
};
