// Pairwise verdicts: which of two responses is better, or a tie. Reads MT-Bench "[[A]]"/"[[B]]"/"[[C]]",
// Arena-Hard "[[A>>B]]"/"[[A=B]]", "Output (a)", "Winner: Response B", JSON {"winner": "A"}, <winner>B</winner>.
import { ci, compileChoice, parseChoice } from './choice.js';
import type { ParseContext, Verdict } from './verdict.js';

export type PairwiseValue = 'A' | 'B' | 'tie';

const PREFIX = ['response', 'assistant', 'output', 'answer', 'model', 'candidate', 'option'].map(ci).join('|');
const SIDE = String.raw`(?:(?:${PREFIX})\s*\(?\s*[ABab]\s*\)?|\(\s*[ABab]\s*\)|[AB])`;
const RELATION = String.raw`(?:[AB]\s*(?:>>|<<|>|<|=)\s*[AB])`;
const TIE = ['a tie', 'tie', 'draw', 'equal', 'both equal', 'equally good', 'same'].map(ci).join('|');
const VALUE = String.raw`(?:${RELATION}|${SIDE}|${TIE}|C)`;

function canon(token: string): PairwiseValue | undefined {
  const t = token.trim().replace(/^[("'[*\s]+|[)"'\].!*\s]+$/g, '');
  const rel = /^([AB])\s*(>>|<<|>|<|=)\s*([AB])$/.exec(t);
  if (rel) {
    const [, l, op, r] = rel;
    if (l === r) return undefined;
    if (op === '=') return 'tie';
    const leftWins = op!.startsWith('>');
    return (leftWins ? l : r) as PairwiseValue;
  }
  if (/^C$/.test(t)) return 'tie';
  if (new RegExp(`^(?:${TIE})$`).test(t)) return 'tie';
  const side = new RegExp(String.raw`^(?:(?:${PREFIX})\s*\(?\s*([ABab])\s*\)?|\(?\s*([ABab])\s*\)?)$`).exec(t);
  if (side) {
    const s = (side[1] ?? side[2])!;
    // a bare lowercase "a" is the English article, not a verdict
    if (!side[1] && s !== s.toUpperCase() && !/^\(/.test(token.trim())) return undefined;
    return s.toUpperCase() as PairwiseValue;
  }
  return undefined;
}

const compiled = compileChoice<PairwiseValue>({
  what: 'pairwise verdict',
  value: VALUE,
  canon,
  keys: [
    'final verdict',
    'verdict',
    'winner',
    'better response',
    'preferred response',
    'preferred',
    'preference',
    'my choice',
    'choice',
    'better output',
    'better',
  ],
  jsonKeys: ['winner', 'verdict', 'preference', 'preferred', 'better', 'better_response', 'choice', 'result'],
  tags: ['winner', 'verdict', 'preference', 'choice', 'better_response', 'result', 'answer'],
});

export function parsePairwise(raw: string, ctx: ParseContext = {}): Verdict<PairwiseValue> {
  return parseChoice(raw, compiled, ctx);
}
