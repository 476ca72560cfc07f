// Yes/no verdicts (reference_verify, rubric criteria met or not): "[[YES]]", "Verdict: Correct",
// "Equivalent: No", JSON {"correct": true}, <verdict>incorrect</verdict>, or a final "No." line.
import { ci, compileChoice, parseChoice } from './choice.js';
import type { ParseContext, Verdict } from './verdict.js';

const NEGATIVE = [
  'not equivalent',
  'not correct',
  'not the same',
  'not met',
  'incorrect',
  'inconsistent',
  'unmet',
  'no',
  'false',
  'wrong',
  'different',
  'mismatch',
  'fail',
  'failed',
  'reject',
  'invalid',
  'not satisfied',
];
const POSITIVE = [
  'yes',
  'correct',
  'true',
  'equivalent',
  'right',
  'match',
  'matches',
  'same',
  'consistent',
  'met',
  'satisfied',
  'pass',
  'passed',
  'accept',
  'valid',
];
const ALL = [...NEGATIVE, ...POSITIVE].sort((a, b) => b.length - a.length);
const VALUE = String.raw`(?:${ALL.map(ci).join('|')})`;
const NEG = new Set(NEGATIVE);
const POS = new Set(POSITIVE);

function canon(token: string): boolean | undefined {
  const t = token
    .trim()
    .replace(/^[("'[*\s]+|[)"'\].!*\s]+$/g, '')
    .toLowerCase()
    .replace(/[\s_]+/g, ' ');
  if (NEG.has(t)) return false;
  if (POS.has(t)) return true;
  return undefined;
}

const compiled = compileChoice<boolean>({
  what: 'yes/no verdict',
  value: VALUE,
  canon,
  keys: [
    'final verdict',
    'verdict',
    'judgement',
    'judgment',
    'final answer',
    'final judgement',
    'final judgment',
    'conclusion',
    'result',
    'decision',
    'equivalent',
    'equivalence',
    'is correct',
    'is equivalent',
    'correctness',
    'correct',
    'criterion met',
    'met',
    'satisfied',
    'assessment',
    'answer',
  ],
  jsonKeys: ['verdict', 'result', 'correct', 'is_correct', 'equivalent', 'is_equivalent', 'judgement', 'judgment', 'decision', 'met', 'satisfied', 'answer'],
  tags: ['verdict', 'answer', 'judgement', 'judgment', 'result', 'decision', 'correct', 'equivalent', 'met'],
  fromBool: (b) => b,
  fromNumber: (n) => (n === 1 ? true : n === 0 ? false : undefined),
});

export function parseYesNo(raw: string, ctx: ParseContext = {}): Verdict<boolean> {
  return parseChoice(raw, compiled, ctx);
}
