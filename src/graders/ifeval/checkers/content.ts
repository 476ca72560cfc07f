// IFEval `detectable_content:*`: at least N `[placeholder]`s; a postscript starting with a marker.
import { escapeRegExp } from '../pytext.js';
import { countPlaceholders } from '../scan.js';
import { intArg, strArg, type InstructionType } from '../types.js';

export const contentInstructions: InstructionType[] = [
  {
    id: 'detectable_content:number_placeholders',
    args: ['num_placeholders'],
    build(kw) {
      const n = intArg(kw, 'num_placeholders');
      return (r) => countPlaceholders(r) >= n;
    },
  },
  {
    id: 'detectable_content:postscript',
    args: ['postscript_marker'],
    build(kw) {
      const marker = strArg(kw, 'postscript_marker').trim();
      // The reference searches `\s*MARKER.*$` (MULTILINE) in the lowercased response, which
      // amounts to "the marker occurs somewhere"; P.S. and P.P.S get spacing-tolerant patterns.
      const re = marker === 'P.P.S' ? /p\.\s?p\.\s?s/u : marker === 'P.S.' ? /p\.\s?s\./u : new RegExp(escapeRegExp(marker.toLowerCase()), 'u');
      return (r) => re.test(r.toLowerCase());
    },
  },
];
