// The response as a judge or reward model sees it: `extract.think` (the shared extraction layer)
// applied to the sample's output_text before any template renders it. Default `keep`: a judge of
// the reasoning (a thinking reward, a process judge) must see it; `strip` shows only the answer. A
// reasoning block that never closes under `strip` leaves no answer to judge: a valid score at the
// grader's floor (a ResponseFault), and the model is not asked.
import { ResponseFault } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';
import { extractSchema, neverCloses, readText, resolveExtract } from '../../extract/index.js';

/** The `extract` field every judge type takes: `{think: "keep" | "strip"}` (default keep). */
export const judgeExtractField = { extract: extractSchema(['whole'] as const) };

export type JudgeExtract = { think?: 'keep' | 'strip' | undefined; from?: 'whole' | undefined } | undefined;

/** The input a judge renders: output_text read per `extract`; throws ResponseFault(floor) when its reasoning never closes. */
export function judgedInput(extract: JudgeExtract, floor: number): (input: GradeInput) => GradeInput {
  const ext = resolveExtract(extract, { think: 'keep', from: 'whole' });
  if (ext.think === 'keep') return (input) => input;
  return (input) => {
    const text = input.sample.output_text;
    if (typeof text !== 'string') return input;
    const got = readText(text, ext);
    if (!got.ok) throw new ResponseFault('unparsable', neverCloses('no answer for the judge (it was not asked)'), { floor, metadata: { extracted: got.read } });
    return got.changed ? { ...input, sample: { ...input.sample, output_text: got.text } } : input;
  };
}
