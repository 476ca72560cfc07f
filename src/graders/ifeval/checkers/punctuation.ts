// IFEval `punctuation:no_comma`: no ASCII comma anywhere.
import type { InstructionType } from '../types.js';

export const punctuationInstructions: InstructionType[] = [
  {
    id: 'punctuation:no_comma',
    args: [],
    build() {
      return (r) => !r.includes(',');
    },
  },
];
