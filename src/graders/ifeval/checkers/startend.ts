// IFEval `startend:*`: end with an exact phrase; wrap the whole response in double quotes.
import { pyStrip, stripChars } from '../pytext.js';
import { strArg, type InstructionType } from '../types.js';

export const startEndInstructions: InstructionType[] = [
  {
    id: 'startend:end_checker',
    args: ['end_phrase'],
    build(kw) {
      const phrase = pyStrip(strArg(kw, 'end_phrase')).toLowerCase();
      return (r) => stripChars(pyStrip(r), '"').toLowerCase().endsWith(phrase);
    },
  },
  {
    id: 'startend:quotation',
    args: [],
    build() {
      return (r) => {
        const v = pyStrip(r);
        return v.length > 1 && v[0] === '"' && v[v.length - 1] === '"';
      };
    },
  },
];
