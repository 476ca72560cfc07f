// Pulls the program out of a model output: the last fenced block tagged with the language,
// else the last untagged block, else the last block of any tag; the whole text when there is
// no fence. An unterminated final fence (a truncated answer) counts up to the end of the text.
import { pickFencedBlock } from '../../extract/fence.js';
import { languageByName, type LanguageName } from '../../sandbox/languages.js';

export interface Extracted {
  code: string;
  /** Where the code came from: a fenced block or the whole output. */
  from: 'fence' | 'whole';
  tag?: string;
}

export function extractCode(text: string, language: LanguageName): Extracted {
  const pick = pickFencedBlock(text, (tag) => languageByName(tag)?.name === language);
  if (!pick) return { code: text, from: 'whole' };
  return pick.tag ? { code: pick.body, from: 'fence', tag: pick.tag } : { code: pick.body, from: 'fence' };
}
