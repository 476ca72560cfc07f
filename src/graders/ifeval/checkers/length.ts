// IFEval `length_constraints:*`: number of sentences (Punkt), words (`\w+` tokens), paragraphs
// (separated by `***`), and the first word of the n-th "\n\n"-separated paragraph.
import { countSentences } from '../punkt.js';
import { countWords, lstripChars, pySplit, pyStrip } from '../pytext.js';
import { compare, intArg, KwargsError, relationArg, strArg, type InstructionType } from '../types.js';

const FIRST_WORD_STOP = new Set(['.', ',', '?', '!', "'", '"']);

export const lengthInstructions: InstructionType[] = [
  {
    id: 'length_constraints:number_sentences',
    args: ['num_sentences', 'relation'],
    build(kw) {
      const n = intArg(kw, 'num_sentences');
      const rel = relationArg(kw, 'relation');
      return (r) => compare(countSentences(r), rel, n);
    },
  },
  {
    id: 'length_constraints:number_words',
    args: ['num_words', 'relation'],
    build(kw) {
      const n = intArg(kw, 'num_words');
      const rel = relationArg(kw, 'relation');
      return (r) => compare(countWords(r), rel, n);
    },
  },
  {
    id: 'length_constraints:number_paragraphs',
    args: ['num_paragraphs'],
    build(kw) {
      const n = intArg(kw, 'num_paragraphs');
      return (r) => {
        const parts = r.split(/\s?\*\*\*\s?/u);
        let count = parts.length;
        for (let i = 0; i < parts.length; i++) {
          if (pyStrip(parts[i]!)) continue;
          if (i === 0 || i === parts.length - 1) count--;
          else return false;
        }
        return count === n;
      };
    },
  },
  {
    id: 'length_constraints:nth_paragraph_first_word',
    args: ['num_paragraphs', 'nth_paragraph', 'first_word'],
    build(kw) {
      const num = intArg(kw, 'num_paragraphs', 1);
      const nth = intArg(kw, 'nth_paragraph', 1);
      if (nth > num) throw new KwargsError(`"nth_paragraph" (${nth}) must not exceed "num_paragraphs" (${num})`);
      const want = strArg(kw, 'first_word').toLowerCase();
      return (r) => {
        const parts = r.split('\n\n');
        const count = parts.filter((p) => pyStrip(p)).length;
        if (nth > count) return false;
        const para = pyStrip(parts[nth - 1]!);
        if (!para) return false;
        const word = lstripChars(lstripChars(pyStrip(pySplit(para)[0]!), "'"), '"');
        let first = '';
        for (const ch of word) {
          if (FIRST_WORD_STOP.has(ch)) break;
          first += ch.toLowerCase();
        }
        return count === num && first === want;
      };
    },
  },
];
