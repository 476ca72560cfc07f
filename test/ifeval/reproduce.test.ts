// IFEval proof: grading the 540 GPT-4 responses reproduces the reference implementation's
// verdicts (eval_results_strict/loose.jsonl). Every disagreement is listed here with its cause.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';
import { dataPath } from '../helpers/data.js';

const dir = `${dataPath('ifeval')}/`;
const rows = (f: string) =>
  readFileSync(dir + f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const inputs = new Map(rows('input_data.jsonl').map((x) => [x.prompt, x]));

/**
 * Known disagreements (key, instruction id, mode), with their cause:
 * - 2464 language:response_language (hi) and 2596 (bg), strict: the responses mix scripts or
 *   languages, and langdetect samples n-grams at random; the reference ran unseeded, we run with
 *   a fixed seed, and our draw lands on another language (the loose variants agree).
 * - 1122 keywords:letter_frequency, letter "#", loose: the reference replaces a non-letter by a
 *   random ASCII letter; we count "#" as asked (at least 4 appear in a variant of the response).
 */
const KNOWN = new Set(['strict 2464 language:response_language', 'strict 2596 language:response_language', 'loose 1122 keywords:letter_frequency']);

const REFERENCE = { strict: { prompt: 0.772, instruction: 0.838 }, loose: { prompt: 0.796, instruction: 0.856 } };

describe('IFEval reproduction on the 540 GPT-4 responses', () => {
  for (const mode of ['strict', 'loose'] as const) {
    it(`${mode}: accuracies within 0.005 and per-instruction agreement >= 99.5%`, async () => {
      const g = loadGrader({ type: 'ifeval', instruction_ids: '{{item.instruction_id_list}}', kwargs: '{{item.kwargs}}', mode });
      const ref = rows(`eval_results_${mode}.jsonl`);
      expect(ref.length).toBe(540);
      let promptOk = 0;
      let followed = 0;
      let total = 0;
      let agree = 0;
      const disagreements: string[] = [];
      for (const r of ref) {
        const item = inputs.get(r.prompt);
        const res = await grade(g, { item, output_text: r.response });
        expect(res.valid, res.error?.message).toBe(true);
        const verdicts = res.metadata.follow_instruction_list as boolean[];
        expect(Object.keys(res.components!).length).toBe(item.instruction_id_list.length);
        if (res.score === 1) promptOk++;
        verdicts.forEach((v, i) => {
          total++;
          if (v) followed++;
          if (v === r.follow_instruction_list[i]) agree++;
          else disagreements.push(`${mode} ${item.key} ${item.instruction_id_list[i]}`);
        });
      }
      const prompt = promptOk / ref.length;
      const instruction = followed / total;
      expect(Math.abs(prompt - REFERENCE[mode].prompt)).toBeLessThanOrEqual(0.005);
      expect(Math.abs(instruction - REFERENCE[mode].instruction)).toBeLessThanOrEqual(0.005);
      expect(agree / total).toBeGreaterThanOrEqual(0.995);
      for (const d of disagreements) expect(KNOWN, `unexplained disagreement ${d}`).toContain(d);
    });
  }
});
