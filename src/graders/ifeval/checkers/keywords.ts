// IFEval `keywords:*` instructions: existence, frequency, forbidden_words, letter_frequency.
// Keywords are matched case-insensitively as literal text (the reference passes them to `re`
// as patterns; for the plain words IFEval uses, that is the same thing).
import { escapeRegExp, PY_W } from '../pytext.js';
import { compare, intArg, KwargsError, relationArg, strArg, strListArg, type InstructionType } from '../types.js';

const BOUNDARY = `(?:(?<=${PY_W})(?!${PY_W})|(?<!${PY_W})(?=${PY_W}))`;

export const keywordInstructions: InstructionType[] = [
  {
    id: 'keywords:existence',
    args: ['keywords'],
    build(kw) {
      const res = strListArg(kw, 'keywords').map((k) => new RegExp(escapeRegExp(k), 'iu'));
      return (r) => res.every((re) => re.test(r));
    },
  },
  {
    id: 'keywords:frequency',
    args: ['keyword', 'frequency', 'relation'],
    build(kw) {
      const re = new RegExp(escapeRegExp(strArg(kw, 'keyword').trim()), 'giu');
      const freq = intArg(kw, 'frequency');
      const rel = relationArg(kw, 'relation');
      return (r) => compare(r.match(re)?.length ?? 0, rel, freq);
    },
  },
  {
    id: 'keywords:forbidden_words',
    args: ['forbidden_words'],
    build(kw) {
      const res = strListArg(kw, 'forbidden_words').map((w) => new RegExp(BOUNDARY + escapeRegExp(w) + BOUNDARY, 'iu'));
      return (r) => !res.some((re) => re.test(r));
    },
  },
  {
    id: 'keywords:letter_frequency',
    args: ['letter', 'let_frequency', 'let_relation'],
    build(kw) {
      // The reference swaps anything but one ASCII letter for a random letter; we count the
      // character that was asked for (IFEval itself has items asking for "!" and "#").
      const letter = strArg(kw, 'letter').trim().toLowerCase();
      if ([...letter].length !== 1) throw new KwargsError(`"letter" must be a single character, got ${JSON.stringify(letter)}`);
      const freq = intArg(kw, 'let_frequency');
      const rel = relationArg(kw, 'let_relation');
      return (r) => compare(r.toLowerCase().split(letter).length - 1, rel, freq);
    },
  },
];
