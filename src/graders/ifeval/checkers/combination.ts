// IFEval `combination:*`: two different responses separated by ******; repeat the request first.
import { pyStrip } from '../pytext.js';
import { strArg, type InstructionType } from '../types.js';

export const combinationInstructions: InstructionType[] = [
  {
    id: 'combination:two_responses',
    args: [],
    build() {
      return (r) => {
        const parts = r.split('******');
        const valid: string[] = [];
        for (let i = 0; i < parts.length; i++) {
          if (!pyStrip(parts[i]!)) {
            if (i !== 0 && i !== parts.length - 1) return false;
          } else valid.push(parts[i]!);
        }
        return valid.length === 2 && pyStrip(valid[0]!) !== pyStrip(valid[1]!);
      };
    },
  },
  {
    id: 'combination:repeat_prompt',
    args: ['prompt_to_repeat'],
    build(kw) {
      const prompt = pyStrip(strArg(kw, 'prompt_to_repeat')).toLowerCase();
      return (r) => pyStrip(r).toLowerCase().startsWith(prompt);
    },
  },
];
