// Asking a live grader which of two responses is better, in the benchmark's terms. A `pairwise`
// grader (or any grader used with --mode pairwise) sees both responses: its verdict is read from
// metadata.verdict_ab / verdict_ba (or from its score: > 0.5 means the first-shown response), and
// a single-order grader is asked a second time with the responses swapped. A pointwise grader
// (score_model, reward_model, any other type) scores each response on its own.
// Every outcome is in the ORIGINAL A/B terms (A = the first response of the record).
import type { Grader } from '../core/grader.js';
import type { Result } from '../core/result.js';
import type { Services } from '../core/services.js';
import { gradeOne } from './run.js';

export type Side = 'A' | 'B' | 'tie';
export type JudgeMode = 'pairwise' | 'pointwise';

export interface OrderOutcome {
  /** null when the grader could not decide (invalid result). */
  winner: Side | null;
  /** The grader's reason, or its error. */
  reason: string;
  error?: string;
  /** Pointwise: the scores of A and B. */
  scores?: [number | null, number | null];
}

export interface PairTask {
  question: string;
  a: string;
  b: string;
  /** The record's own fields, passed to the grader as `item` (plus question/response_a/response_b). */
  item: Record<string, unknown>;
}

export function judgeMode(grader: Grader, override?: string): JudgeMode {
  if (override === 'pairwise' || override === 'pointwise') return override;
  return grader.type === 'pairwise' ? 'pairwise' : 'pointwise';
}

function swapSide(s: Side | null): Side | null {
  return s === 'A' ? 'B' : s === 'B' ? 'A' : s;
}

function sideOf(v: unknown): Side | undefined {
  return v === 'A' || v === 'B' || v === 'tie' ? v : undefined;
}

function errorText(r: Result): string {
  return `${r.error?.kind ?? 'invalid'}: ${r.error?.message ?? 'no message'}`;
}

/** The first-shown response's verdict from one pairwise grade, in that grade's own terms. */
function verdictOf(r: Result): OrderOutcome {
  if (!r.valid || r.score === null) return { winner: null, reason: errorText(r), error: errorText(r) };
  const v = sideOf(r.metadata?.verdict_ab);
  const winner: Side = v ?? (r.score > 0.5 ? 'A' : r.score < 0.5 ? 'B' : 'tie');
  return { winner, reason: r.reason ?? '' };
}

/** True when one grade of this grader already judges both orders (pairwise with orders "both"). */
function judgesBothOrders(grader: Grader): boolean {
  return grader.type === 'pairwise' && grader.config.orders !== 'single';
}

/**
 * Judges a pair in `orders` orders (1: A shown first; 2: also B shown first). Returns one outcome
 * per order, each in original A/B terms. Pointwise graders give the same outcome for both orders
 * and are graded once per response.
 */
export async function judgePair(grader: Grader, mode: JudgeMode, task: PairTask, services: Services, orders: 1 | 2): Promise<OrderOutcome[]> {
  if (mode === 'pointwise') {
    const itemFor = { ...task.item, question: task.question, prompt: task.question };
    const [ra, rb] = await Promise.all([gradeOne(grader, services, itemFor, task.a), gradeOne(grader, services, itemFor, task.b)]);
    const sa = ra.valid ? ra.score : null;
    const sb = rb.valid ? rb.score : null;
    if (sa === null || sb === null) {
      const bad = [sa === null ? `A: ${errorText(ra)}` : '', sb === null ? `B: ${errorText(rb)}` : ''].filter(Boolean).join('; ');
      const o: OrderOutcome = { winner: null, reason: bad, error: bad, scores: [sa, sb] };
      return orders === 2 ? [o, o] : [o];
    }
    const o: OrderOutcome = { winner: sa > sb ? 'A' : sa < sb ? 'B' : 'tie', reason: `A: ${ra.reason ?? sa} | B: ${rb.reason ?? sb}`, scores: [sa, sb] };
    return orders === 2 ? [o, o] : [o];
  }
  const item = (x: string, y: string) => ({ ...task.item, question: task.question, response_a: x, response_b: y });
  if (judgesBothOrders(grader)) {
    const r = await gradeOne(grader, services, item(task.a, task.b), task.a);
    const first = verdictOf(r);
    if (orders === 1) return [first];
    if (first.winner === null) return [first, first];
    // verdict_ba is already mapped back into "A = first response" terms by the pairwise grader
    const second = sideOf(r.metadata?.verdict_ba);
    const parts = (r.reason ?? '').split(/\n\n(?=\[B first\])/);
    return [
      { winner: first.winner, reason: parts[0] ?? '' },
      { winner: second ?? null, reason: parts[1] ?? parts[0] ?? '', ...(second ? {} : { error: 'no second-order verdict in the grader metadata' }) },
    ];
  }
  const runs = await Promise.all([
    gradeOne(grader, services, item(task.a, task.b), task.a),
    ...(orders === 2 ? [gradeOne(grader, services, item(task.b, task.a), task.b)] : []),
  ]);
  const out = [verdictOf(runs[0]!)];
  if (runs[1]) {
    const o = verdictOf(runs[1]);
    out.push({ ...o, winner: swapSide(o.winner) });
  }
  return out;
}
