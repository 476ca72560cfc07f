// IFEval `change_case:*`: all-capital English, all-lowercase English, and a count of all-capital
// words (NLTK word tokens that are `isupper()`).
import { isLower, isUpper } from '../pytext.js';
import { compare, intArg, relationArg, type InstructionType } from '../types.js';
import { wordTokenize } from '../word-tokenize.js';

export const caseInstructions: InstructionType[] = [
  {
    id: 'change_case:english_capital',
    args: [],
    usesLanguage: true,
    build() {
      return (r, ctx) => {
        if (!isUpper(r)) return false;
        const lang = ctx.detectLanguage(r);
        return lang === null || lang === 'en';
      };
    },
  },
  {
    id: 'change_case:english_lowercase',
    args: [],
    usesLanguage: true,
    build() {
      return (r, ctx) => {
        if (!isLower(r)) return false;
        const lang = ctx.detectLanguage(r);
        return lang === null || lang === 'en';
      };
    },
  },
  {
    id: 'change_case:capital_word_frequency',
    args: ['capital_frequency', 'capital_relation'],
    build(kw) {
      const n = intArg(kw, 'capital_frequency');
      const rel = relationArg(kw, 'capital_relation');
      return (r) => compare(wordTokenize(r).filter(isUpper).length, rel, n);
    },
  },
];
