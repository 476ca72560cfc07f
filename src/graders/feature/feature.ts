// `feature`: a number the sample or item already carries, as a score: `value` is a template (e.g.
// "{{sample.features.f1}}") giving a number, or a list summed in order (each element itself, or
// its `field`, a dotted path: a segment's per-step feature). The graders `arbiter learn` exports
// read precomputed features with it.
import { z } from 'zod';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { GradeFailure } from '../../core/result.js';
import { renderCompiled } from '../../core/template.js';
import { getPath } from '../../io/path.js';

const schema = graderSchema({
  value: z.string().min(1),
  /** With a list: the dotted path of the number in each element. */
  field: z.string().min(1).optional(),
});

const num = (v: unknown, what: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new GradeFailure('bad_input', `${what} is not a finite number`);
  return v;
};

export const feature: GraderType<z.infer<typeof schema>> = {
  type: 'feature',
  summary: 'a number the sample or item carries (a template), or the sum over a list of them, as the score',
  capabilities: PURE,
  schema,
  build(cfg, b) {
    const t = b.value('value', cfg.value);
    const field = cfg.field;
    return (input) => {
      const v = renderCompiled(t, input);
      if (!Array.isArray(v)) {
        if (field !== undefined) throw new GradeFailure('bad_input', `value must be a list when "field" is given`);
        const x = num(v, 'value');
        return { score: x, reason: `value ${x}` };
      }
      let total = 0;
      v.forEach((el, i) => {
        total += num(field !== undefined ? getPath(el, field) : el, field !== undefined ? `element ${i}'s "${field}"` : `element ${i}`);
      });
      return { score: total, reason: `sum over ${v.length} element(s) = ${total}` };
    };
  },
};
