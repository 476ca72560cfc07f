// Scores from token probabilities: finds the token that carries the parsed verdict in the
// choice's logprobs and averages the alternatives there (expected score over numbers in range,
// or P(yes) over yes/no words). When the verdict spans several tokens or cannot be located,
// says why, and the caller keeps the parsed verdict.
import type { ChatChoice, TokenLogprob } from '../../models/types.js';

export interface LogprobScore {
  score: number;
  /** Probability mass of the alternatives that mapped to a value (0..1). */
  mass: number;
  token: string;
}

export type LogprobOutcome = { ok: true; value: LogprobScore } | { ok: false; reason: string };

/** Index of the token covering character `start` of the content, or -1. */
function tokenAt(tokens: TokenLogprob[], content: string, start: number, matched: string): { index: number; single: boolean } {
  const joined = tokens.map((t) => t.token).join('');
  if (joined === content) {
    let pos = 0;
    for (let i = 0; i < tokens.length; i++) {
      const len = tokens[i]!.token.length;
      if (start >= pos && start < pos + len) {
        // the verdict fits inside this token when its text (without spaces) covers the whole value
        const tokEnd = pos + len;
        return { index: i, single: start + matched.length <= tokEnd };
      }
      pos += len;
    }
    return { index: -1, single: false };
  }
  // tokens do not spell the content exactly (e.g. reasoning stripped server-side): last exact match
  for (let i = tokens.length - 1; i >= 0; i--) if (tokens[i]!.token.trim() === matched) return { index: i, single: true };
  return { index: -1, single: false };
}

/**
 * Probability-weighted value at the verdict token. `valueOfToken` maps a candidate token to a number
 * (score, or 1/0 for yes/no) or undefined when the token is not a verdict.
 */
export function logprobScore(choice: ChatChoice, start: number, matched: string, valueOfToken: (token: string) => number | undefined): LogprobOutcome {
  const tokens = choice.logprobs;
  if (!tokens || tokens.length === 0) return { ok: false, reason: 'the server returned no logprobs' };
  const at = tokenAt(tokens, choice.content, start, matched);
  if (at.index < 0) return { ok: false, reason: 'the verdict token was not found in the logprobs' };
  if (!at.single) return { ok: false, reason: `the verdict "${matched}" spans several tokens` };
  const tok = tokens[at.index]!;
  const alts = tok.top_logprobs.length ? tok.top_logprobs : [{ token: tok.token, logprob: tok.logprob }];
  const seen = new Set<string>();
  let mass = 0;
  let weighted = 0;
  for (const a of alts) {
    if (seen.has(a.token)) continue;
    seen.add(a.token);
    const v = valueOfToken(a.token);
    if (v === undefined || !Number.isFinite(a.logprob)) continue;
    const p = Math.exp(a.logprob);
    mass += p;
    weighted += p * v;
  }
  if (!(mass > 0)) return { ok: false, reason: 'no verdict alternatives among the top logprobs' };
  return { ok: true, value: { score: weighted / mass, mass, token: tok.token } };
}

/** Token → integer score within [lo, hi] (e.g. " 7" → 7). */
export function numericToken(lo: number, hi: number): (t: string) => number | undefined {
  return (t) => {
    const s = t.trim();
    if (!/^[-+]?\d+(?:\.\d+)?$/.test(s)) return undefined;
    const v = Number(s);
    return v >= lo && v <= hi ? v : undefined;
  };
}

const YES = new Set(['yes', 'correct', 'true', 'equivalent', 'right', 'met', 'pass', 'y']);
const NO = new Set(['no', 'incorrect', 'false', 'not', 'wrong', 'unmet', 'fail', 'n', 'in', 'inc']);

/** Token → 1 (yes-like) or 0 (no-like). */
export function yesNoToken(t: string): number | undefined {
  const s = t
    .trim()
    .toLowerCase()
    .replace(/^[[("'*]+|[\])"'*.,!]+$/g, '');
  if (YES.has(s)) return 1;
  if (NO.has(s)) return 0;
  return undefined;
}
