// Choosing one answer among candidate solutions: best-of-N (the candidate the verifier scores
// highest; any grader can verify) and majority voting over extracted final answers (the math
// grader's extraction and equivalence), plain or weighted by the verifier's scores. A candidate the
// verifier could not grade takes no part (never counted as a 0); one without a final answer cannot
// win a vote.
import type { Grader } from '../core/grader.js';
import type { Result } from '../core/result.js';
import type { GradeInput } from '../core/sample.js';
import type { Services } from '../core/services.js';
import { extractAnswer } from '../graders/math/extract.js';
import { verifyMath } from '../graders/math/verify.js';

export interface Candidate {
  text: string;
  /** The verifier's score (undefined when not verified or when its grade was invalid). */
  score?: number;
  /** Why the verifier could not grade it. */
  invalid?: string;
}

/** Grades each candidate text with `verifier` as `{item, sample: {output_text}}` (or the sample `toSample` builds). */
export async function verifyCandidates(
  verifier: Grader,
  item: GradeInput['item'],
  texts: readonly string[],
  services: Services,
  signal?: AbortSignal,
  toSample: (text: string) => GradeInput['sample'] = (output_text) => ({ output_text }),
): Promise<Candidate[]> {
  const results: Result[] = await Promise.all(texts.map((t) => verifier.grade({ item, sample: toSample(t) }, { services, signal })));
  return texts.map((text, i) => {
    const r = results[i]!;
    return r.valid && r.score !== null ? { text, score: r.score } : { text, invalid: `${r.error?.kind ?? 'invalid'}: ${r.error?.message ?? ''}` };
  });
}

/** Index of the highest-scored verified candidate (the first among equals), or -1 when none was verified. */
export function bestOfN(cands: readonly Candidate[]): number {
  let best = -1;
  cands.forEach((c, i) => {
    if (c.score === undefined) return;
    if (best < 0 || c.score > cands[best]!.score!) best = i;
  });
  return best;
}

export interface Vote {
  /** Index of the candidate that stands for the winning answer (its first member), or -1. */
  index: number;
  answer?: string;
  /** Total weight of the winning answer, and of all answers. */
  weight: number;
  total: number;
  groups: { answer: string; weight: number; members: number[] }[];
}

/** How a final answer may be marked for voting and for ending a beam (no bold, bare or last-number guess). */
const MARKED = new Set(['answer_tag', 'boxed', 'answer_phrase', 'answer_line', 'hash']);

/** The final answer of a solution text, marked as one (boxed, <answer>, "the answer is", "Answer:", "####"), or undefined. */
export function finalAnswer(text: string): string | undefined {
  const ex = extractAnswer(text, { last_number: false, whole: false });
  return ex && MARKED.has(ex.method) ? ex.text : undefined;
}

/**
 * Majority vote over the candidates' final answers, grouped by mathematical equivalence (two answers
 * are one when verifyMath finds them equal). `weighted`: each candidate weighs its verifier score
 * (unverified candidates take no part); else every candidate with an answer weighs 1. Ties go to the
 * answer seen first.
 */
export function majorityVote(cands: readonly Candidate[], weighted: boolean): Vote {
  const groups: { answer: string; weight: number; members: number[] }[] = [];
  let total = 0;
  cands.forEach((c, i) => {
    if (weighted && c.score === undefined) return;
    const ans = finalAnswer(c.text);
    if (ans === undefined) return;
    const w = weighted ? c.score! : 1;
    total += w;
    const g = groups.find((x) => x.answer === ans || verifyMath(ans, x.answer).score === 1);
    if (g) {
      g.weight += w;
      g.members.push(i);
    } else groups.push({ answer: ans, weight: w, members: [i] });
  });
  let top: (typeof groups)[number] | undefined;
  for (const g of groups) if (!top || g.weight > top.weight) top = g;
  return top ? { index: top.members[0]!, answer: top.answer, weight: top.weight, total, groups } : { index: -1, weight: 0, total, groups };
}
