// Choosing among the responses to one prompt, from `arbiter score` output grouped by uid: best-of-N
// (`arbiter select`: rejection sampling, RAFT, Cooper's positives) and chosen/rejected pairs
// (`arbiter pairs`: DPO data in TRL's preference format). The ranking value and the predicates are
// formulas in the language of multi's `calculate_output` (variables: `score` and each top-level
// component's score; group functions see the uid's group). Only valid grades take part; a group
// that yields nothing is counted with its reason, never silently missing; ties are broken by a
// stated rule (first line, shortest text, or a seeded draw).
import { ConfigError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import { compileFormula, FormulaError, groupScope, type Env, type Formula, type GroupScope } from '../graders/composite/formula.js';
import { randomDraw } from '../graders/composite/random.js';
import { isObj } from './rows.js';

export const TIE_RULES = ['first', 'shortest', 'random'] as const;
export type TieRule = (typeof TIE_RULES)[number];

export const PAIR_PICKS = ['best-worst', 'all'] as const;
export type PairPick = (typeof PAIR_PICKS)[number];

/** One scored line of a group, with the texts the export needs (when known). */
export interface Candidate {
  /** 1-based line of the scored input. */
  line: number;
  id: unknown;
  uid: unknown;
  /** The formula variables: `score` and each valid top-level component's score. */
  env: Env;
  /** Every top-level component the line names (valid or not). */
  names: readonly string[];
  /** The line's response_length field, when it has one. */
  responseLength?: number;
  prompt?: unknown;
  completion?: unknown;
}

export interface RankOptions {
  /** Ranking formula (default "score"): higher is better. */
  by?: string;
  tie?: TieRule;
  /** Seed of the `random` tie rule (default 0). */
  seed?: number;
}

export interface SelectOptions extends RankOptions {
  /** Keep only lines where this formula is true. */
  where?: string;
  /** How many per uid (default 1). */
  top?: number;
}

export interface PairOptions extends RankOptions {
  /** Lines that may be chosen (default: any). */
  chosen?: string;
  /** Lines that may be rejected (default: any). */
  rejected?: string;
  pick?: PairPick;
  /** Least difference of the ranking value between chosen and rejected (default: any positive difference). */
  margin?: number;
  /** At most this many pairs per uid with pick "all". */
  maxPairs?: number;
}

/** Why a group gave no output, by name (counted in the summary). */
export type SkipReason = 'no_valid' | 'one_response' | 'none_match' | 'no_chosen' | 'no_rejected' | 'no_margin';

export interface Ranked {
  cand: Candidate;
  value: number;
  /** The other candidates with the same value that the tie rule passed over. */
  tied: number;
}

export interface Pair {
  chosen: Ranked;
  rejected: Ranked;
}

/** Compiled selection formulas (a bad formula or an unknown variable is a ConfigError naming the option). */
export class Rules {
  readonly by: Formula;
  readonly filters: { name: string; f: Formula }[];
  readonly tie: TieRule;
  readonly seed: number;
  private checked = false;

  constructor(opts: RankOptions, filters: Record<string, string | undefined>) {
    this.by = compile('--by', opts.by ?? 'score');
    this.filters = Object.entries(filters)
      .filter((e): e is [string, string] => e[1] !== undefined)
      .map(([name, src]) => ({ name, f: compile(name, src) }));
    this.tie = opts.tie ?? 'first';
    this.seed = opts.seed ?? 0;
  }

  /**
   * Checks, on the first group, that every variable a formula names is `score` or a component of
   * some line (a misspelt component would otherwise make every line fail its predicate).
   */
  check(cands: readonly Candidate[]): void {
    if (this.checked || cands.length === 0) return;
    this.checked = true;
    const names = new Set<string>(['score']);
    for (const c of cands) for (const k of c.names) names.add(k);
    for (const { name, f } of [{ name: '--by', f: this.by }, ...this.filters]) {
      for (const v of f.variables) {
        if (!names.has(v))
          throw new ConfigError(
            [
              {
                path: name,
                message: `"${f.source}" names "${v}", which no line of the first group has${didYouMean(v, names)} (variables: ${[...names].join(', ')})`,
              },
            ],
            undefined,
            'selection',
          );
      }
    }
  }

  /** The candidates a filter accepts (a formula that cannot evaluate on a line rejects it). */
  keep(name: string, cands: readonly Candidate[], scope: GroupScope): Candidate[] {
    const f = this.filters.find((x) => x.name === name)?.f;
    if (!f) return [...cands];
    return cands.filter((c) => truth(f, c.env, scope));
  }

  /** The candidates with a finite ranking value, best first, ties ordered by the tie rule. */
  rank(cands: readonly Candidate[], scope: GroupScope): Ranked[] {
    const rows: { cand: Candidate; value: number; tieKey: number }[] = [];
    for (const c of cands) {
      const value = evaluate(this.by, c.env, scope);
      if (!Number.isFinite(value)) continue;
      rows.push({ cand: c, value, tieKey: this.tieKey(c) });
    }
    rows.sort((a, b) => b.value - a.value || a.tieKey - b.tieKey || a.cand.line - b.cand.line);
    const same = new Map<number, number>();
    for (const r of rows) same.set(r.value, (same.get(r.value) ?? 0) + 1);
    return rows.map((r) => ({ cand: r.cand, value: r.value, tied: same.get(r.value)! - 1 }));
  }

  /** The worst first (for rejected), ties ordered by the same rule. */
  rankWorst(cands: readonly Candidate[], scope: GroupScope): Ranked[] {
    const best = this.rank(cands, scope);
    const byValue = new Map<number, Ranked[]>();
    for (const r of best) byValue.set(r.value, [...(byValue.get(r.value) ?? []), r]);
    return [...byValue.keys()].sort((a, b) => a - b).flatMap((v) => byValue.get(v)!);
  }

  private tieKey(c: Candidate): number {
    switch (this.tie) {
      case 'first':
        return 0;
      case 'shortest':
        return textLength(c);
      case 'random':
        return randomDraw(this.seed, `${keyText(c.uid)}\u0000${keyText(c.id)}`);
    }
  }
}

function compile(name: string, src: string): Formula {
  try {
    return compileFormula(src);
  } catch (e) {
    if (e instanceof FormulaError) throw new ConfigError([{ path: name, message: `${e.message} in "${src}"` }], undefined, 'selection');
    throw e;
  }
}

function evaluate(f: Formula, env: Env, scope: GroupScope): number {
  try {
    return f.evaluate(env, f.groupCalls.length ? scope : undefined);
  } catch (e) {
    if (e instanceof FormulaError) return Number.NaN; // a component this line lacks (invalid): it takes no part
    throw e;
  }
}

function truth(f: Formula, env: Env, scope: GroupScope): boolean {
  const v = evaluate(f, env, scope);
  return v !== 0 && !Number.isNaN(v);
}

function keyText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'bigint' ? v.toString() : (JSON.stringify(v) ?? 'null');
}

/** Characters of the completion text (code points), or its response_length; the shortest rule needs one. */
function textLength(c: Candidate): number {
  if (typeof c.completion === 'string') return [...c.completion].length;
  if (c.completion !== undefined) return JSON.stringify(c.completion).length;
  if (c.responseLength !== undefined) return c.responseLength;
  throw new ConfigError(
    [{ path: '--tie', message: `"shortest" needs each line's text (--samples) or a response_length field; line ${c.line} has neither` }],
    undefined,
    'selection',
  );
}

/** The top-level component names of a scored record. */
export function componentNames(rec: Record<string, unknown>): string[] {
  return isObj(rec.components) ? Object.keys(rec.components) : [];
}

/**
 * The formula variables of a scored record: `score` when the grade is valid, and each top-level
 * component's score when that component's grade is valid. Undefined when the grade is invalid.
 */
export function envOf(rec: Record<string, unknown>): Env | undefined {
  if (rec.valid === false || typeof rec.score !== 'number' || !Number.isFinite(rec.score)) return undefined;
  const env: Env = { score: rec.score };
  if (isObj(rec.components)) {
    for (const [k, c] of Object.entries(rec.components)) {
      if (isObj(c) && c.valid !== false && typeof c.score === 'number' && Number.isFinite(c.score)) env[k] = c.score;
    }
  }
  return env;
}

/** The group's scope for group functions in the formulas. */
export function scopeOf(cands: readonly Candidate[]): GroupScope {
  return groupScope(cands.map((c) => c.env));
}

/** Best-of-N for one uid: up to `top` lines, best first; or the reason there are none. */
export function selectGroup(rules: Rules, cands: readonly Candidate[], top = 1): Ranked[] | SkipReason {
  if (cands.length === 0) return 'no_valid';
  rules.check(cands);
  const scope = scopeOf(cands);
  const pool = rules.keep('--where', cands, scope);
  const ranked = rules.rank(pool, scope);
  if (ranked.length === 0) return 'none_match';
  return ranked.slice(0, top);
}

/** Chosen/rejected pairs for one uid; or the reason there are none. */
export function pairGroup(rules: Rules, cands: readonly Candidate[], opts: Pick<PairOptions, 'pick' | 'margin' | 'maxPairs'>): Pair[] | SkipReason {
  if (cands.length === 0) return 'no_valid';
  if (cands.length === 1) return 'one_response';
  rules.check(cands);
  const scope = scopeOf(cands);
  const chosen = rules.rank(rules.keep('--chosen', cands, scope), scope);
  const rejected = rules.rankWorst(rules.keep('--rejected', cands, scope), scope);
  if (chosen.length === 0) return 'no_chosen';
  if (rejected.length === 0) return 'no_rejected';
  const enough = (c: Ranked, r: Ranked) => c.cand !== r.cand && (opts.margin === undefined ? c.value > r.value : c.value - r.value >= opts.margin);
  const pairs: Pair[] = [];
  if ((opts.pick ?? 'best-worst') === 'best-worst') {
    // the best chosen against the worst rejected that is not itself
    const c = chosen[0]!;
    const r = rejected.find((x) => x.cand !== c.cand);
    if (r && enough(c, r)) pairs.push({ chosen: c, rejected: r });
  } else {
    const cap = opts.maxPairs ?? Number.POSITIVE_INFINITY;
    outer: for (const c of chosen) {
      for (const r of rejected) {
        if (pairs.length >= cap) break outer;
        if (enough(c, r)) pairs.push({ chosen: c, rejected: r });
      }
    }
  }
  return pairs.length ? pairs : 'no_margin';
}
