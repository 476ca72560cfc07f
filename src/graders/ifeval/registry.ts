// The 25 IFEval instruction checkers, keyed by instruction id.
import { caseInstructions } from './checkers/case.js';
import { combinationInstructions } from './checkers/combination.js';
import { contentInstructions } from './checkers/content.js';
import { formatInstructions } from './checkers/format.js';
import { keywordInstructions } from './checkers/keywords.js';
import { languageInstructions } from './checkers/language.js';
import { lengthInstructions } from './checkers/length.js';
import { punctuationInstructions } from './checkers/punctuation.js';
import { startEndInstructions } from './checkers/startend.js';
import { KwargsError, type Check, type InstructionType, type Kwargs } from './types.js';

export const INSTRUCTIONS: ReadonlyMap<string, InstructionType> = new Map(
  [
    ...keywordInstructions,
    ...languageInstructions,
    ...lengthInstructions,
    ...contentInstructions,
    ...formatInstructions,
    ...combinationInstructions,
    ...startEndInstructions,
    ...caseInstructions,
    ...punctuationInstructions,
  ].map((t) => [t.id, t]),
);

export interface BuiltInstruction {
  id: string;
  check: Check;
  usesLanguage: boolean;
}

/**
 * Builds the check for one instruction. Null-valued kwargs are ignored (the Hugging Face copy of
 * IFEval lists every kwarg name, with null for the unused ones); unknown non-null kwargs are errors.
 */
export function buildInstruction(id: string, kwargs: Kwargs): BuiltInstruction {
  const t = INSTRUCTIONS.get(id);
  if (!t) throw new KwargsError(`unknown instruction id "${id}"`);
  const kw: Kwargs = {};
  for (const [k, v] of Object.entries(kwargs)) {
    if (v === null || v === undefined) continue;
    if (!t.args.includes(k)) throw new KwargsError(`unexpected kwarg "${k}" (${id} takes ${t.args.length ? t.args.join(', ') : 'none'})`);
    kw[k] = v;
  }
  return { id, check: t.build(kw), usesLanguage: !!t.usesLanguage };
}
