// A port of NLTK's `word_tokenize` (Punkt sentences, then the improved Treebank word tokenizer),
// which the IFEval reference uses to count all-capital words.
import { splitSentences } from './punkt.js';

const W = '[\\p{L}\\p{N}_]';
type Rule = [RegExp, string];

const STARTING_QUOTES: Rule[] = [
  [/([«“‘„]|[`]+)/gu, ' $1 '],
  [/^"/u, '``'],
  [/(``)/gu, ' $1 '],
  [/([ ([{<])("|'{2})/gu, '$1 `` '],
  [new RegExp(`(')(?!re|ve|ll|m|t|s|d|n)(${W})(?!${W})`, 'giu'), '$1 $2'],
];

const PUNCTUATION: Rule[] = [
  [/([^.])(\.)([\])}>"'»”’ ]*)\s*$/u, '$1 $2 $3 '],
  [/([:,])([^\p{Nd}])/gu, ' $1 $2'],
  [/([:,])$/u, ' $1 '],
  [/\.{2,}/gu, ' $& '],
  [/[;@#$%&]/gu, ' $& '],
  [/([^.])(\.)([\])}>"']*)\s*$/u, '$1 $2$3 '],
  [/[?!]/gu, ' $& '],
  [/([^'])' /gu, "$1 ' "],
  [/[*]/gu, ' $& '],
];

const PARENS_BRACKETS: Rule = [/[\][(){}<>]/gu, ' $& '];
const DOUBLE_DASHES: Rule = [/--/gu, ' -- '];

const ENDING_QUOTES: Rule[] = [
  [/([»”’])/gu, ' $1 '],
  [/''/gu, " '' "],
  [/"/gu, " '' "],
  [/([^' ])('[sS]|'[mM]|'[dD]|') /gu, '$1 $2 '],
  [/([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /gu, '$1 $2 '],
];

const B0 = `(?<!${W})`;
const B1 = `(?!${W})`;
const CONTRACTIONS: RegExp[] = [
  `${B0}(can)(not)${B1}`,
  `${B0}(d)('ye)${B1}`,
  `${B0}(gim)(me)${B1}`,
  `${B0}(gon)(na)${B1}`,
  `${B0}(got)(ta)${B1}`,
  `${B0}(lem)(me)${B1}`,
  `${B0}(more)('n)${B1}`,
  `${B0}(wan)(na)(?=\\s)`,
  ` ('t)(is)${B1}`,
  ` ('t)(was)${B1}`,
].map((s) => new RegExp(s, 'giu'));

/** Treebank-style tokenisation of one sentence (NLTKWordTokenizer.tokenize). */
export function treebankTokenize(sentence: string): string[] {
  let text = sentence;
  for (const [re, sub] of STARTING_QUOTES) text = text.replace(re, sub);
  for (const [re, sub] of PUNCTUATION) text = text.replace(re, sub);
  text = text.replace(PARENS_BRACKETS[0], PARENS_BRACKETS[1]);
  text = text.replace(DOUBLE_DASHES[0], DOUBLE_DASHES[1]);
  text = ` ${text} `;
  for (const [re, sub] of ENDING_QUOTES) text = text.replace(re, sub);
  for (const re of CONTRACTIONS) text = text.replace(re, ' $1 $2 ');
  return text.split(/\s+/u).filter((t) => t.length > 0);
}

/** `nltk.word_tokenize(text)`. */
export function wordTokenize(text: string): string[] {
  return splitSentences(text).flatMap(treebankTokenize);
}
