// IFEval `language:response_language`: the whole response is in the given language (ISO 639-1).
// Like the reference, text with nothing to detect from counts as followed.
import { strArg, type InstructionType } from '../types.js';

export const languageInstructions: InstructionType[] = [
  {
    id: 'language:response_language',
    args: ['language'],
    usesLanguage: true,
    build(kw) {
      const lang = strArg(kw, 'language').toLowerCase();
      return (r, ctx) => {
        const got = ctx.detectLanguage(r);
        return got === null || got === lang;
      };
    },
  },
];
