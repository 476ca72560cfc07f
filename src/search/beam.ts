// PRM-guided step-level search against the generator: beam search (N beams: every kept beam is
// expanded into M next steps, the PRM scores each partial solution, the best N/M unfinished ones
// are kept) and its diverse variant, DVTS (N/M independent subtrees, each expanded M ways and
// greedily continued with its best child). A beam finishes when its step gives a final answer, when
// the model ends its answer, when it adds nothing, or at max_steps. Budgets: N generations per
// round, and an optional token budget after which no new round starts. A partial solution the PRM
// cannot grade is dropped (never kept with a made-up score).
import type { Grader } from '../core/grader.js';
import type { GradeInput } from '../core/sample.js';
import type { Services } from '../core/services.js';
import type { Generated, GenerationCost, Generator } from './generator.js';
import { finalAnswer } from './select.js';

export interface Beam {
  steps: string[];
  /** The PRM's score of this (partial) solution. */
  score: number;
  done: boolean;
  /** Why it finished: a final answer, the model's end of answer, an empty step, or the step limit. */
  ended?: 'answer' | 'eos' | 'empty' | 'max_steps';
}

export interface StepSearchOptions {
  generator: Generator;
  /** Scores partial solutions given as `{item, sample: {steps}}` (e.g. a prm grader with aggregate "last" or "min"). */
  prm: Grader;
  services: Services;
  input: GradeInput;
  /** Beams: generations per round. */
  n: number;
  /** Expansions per kept beam (M); n must be a multiple of it. */
  beamWidth: number;
  /** Most steps in a solution (default 40). */
  maxSteps?: number;
  /** Completion tokens after which no new round starts. */
  tokenBudget?: number;
  /** DVTS instead of beam search. */
  diverse?: boolean;
  cost: GenerationCost;
  signal?: AbortSignal;
}

export interface StepSearchResult {
  /** Finished solutions (DVTS: one per subtree that finished), best first. */
  finished: Beam[];
  /** The chosen solution: the best finished one, else the best partial one left when the search stopped. */
  best?: Beam;
  rounds: number;
  prm_calls: number;
  prm_invalid: number;
  /** Why the search ended: every beam finished (or died), or the token budget was spent. */
  stopped: 'done' | 'token_budget';
}

/** Refuses an (n, M) pair that cannot be searched as asked. */
export function checkBeamShape(n: number, m: number): string | undefined {
  if (!Number.isInteger(n) || n < 1) return `the number of beams must be a positive integer, got ${n}`;
  if (!Number.isInteger(m) || m < 1) return `beam_width must be a positive integer, got ${m}`;
  if (n % m !== 0) return `the number of beams (${n}) must be a multiple of beam_width (${m})`;
  return undefined;
}

function endOf(g: Generated, text: string, depth: number, maxSteps: number): Beam['ended'] {
  if (finalAnswer(text) !== undefined) return 'answer';
  // vLLM says which stop string ended a choice; null with finish "stop" is the model's own end of answer
  if (g.finish_reason === 'stop' && g.stop_reason === null) return 'eos';
  if (depth + 1 >= maxSteps) return 'max_steps';
  return undefined;
}

export async function stepSearch(o: StepSearchOptions): Promise<StepSearchResult> {
  const why = checkBeamShape(o.n, o.beamWidth);
  if (why) throw new RangeError(why);
  const maxSteps = o.maxSteps ?? 40;
  const m = o.beamWidth;
  const keep = o.n / m;
  const res: StepSearchResult = { finished: [], rounds: 0, prm_calls: 0, prm_invalid: 0, stopped: 'done' };
  const root: Beam = { steps: [], score: -Infinity, done: false };
  // beam search: the kept beams; DVTS: the current beam of each subtree still open
  let open: Beam[] = o.diverse ? Array.from({ length: keep }, () => root) : [root];
  let lastOpen: Beam[] = [];
  for (let depth = 0; open.length > 0; depth++) {
    if (o.tokenBudget !== undefined && o.cost.completion_tokens >= o.tokenBudget) {
      res.stopped = 'token_budget';
      break;
    }
    if (o.tokenBudget !== undefined && o.cost.unreported > 0)
      throw new Error('the generator server reports no token usage, so the token budget cannot be enforced');
    res.rounds++;
    // expansions: beam search expands the root N ways, then every kept beam M ways; DVTS every subtree M ways
    const per = !o.diverse && depth === 0 ? o.n : m;
    const endedEmpty = new Set<Beam>();
    const groups = await Promise.all(open.map((b) => o.generator.nextSteps(o.services, o.input, b.steps, per, o.cost, o.signal)));
    const children: (Beam | undefined)[][] = await Promise.all(
      groups.map((gens, gi) =>
        Promise.all(
          gens.map(async (g): Promise<Beam | undefined> => {
            const parent = open[gi]!;
            const text = g.text.trim();
            const steps = text === '' ? parent.steps : [...parent.steps, text];
            if (steps.length === 0) return undefined; // nothing at all was generated
            const ended = text === '' ? 'empty' : endOf(g, text, depth, maxSteps);
            if (text === '') {
              // the model added nothing: the parent ends here (once, however many children say so)
              if (endedEmpty.has(parent)) return undefined;
              endedEmpty.add(parent);
              return { ...parent, done: true, ended };
            }
            res.prm_calls++;
            const r = await o.prm.grade({ item: o.input.item, sample: { steps } }, { services: o.services, signal: o.signal });
            if (!r.valid || r.score === null) {
              res.prm_invalid++;
              return undefined;
            }
            return { steps, score: r.score, done: ended !== undefined, ...(ended ? { ended } : {}) };
          }),
        ),
      ),
    );
    lastOpen = open;
    if (o.diverse) {
      const next: Beam[] = [];
      for (const kids of children) {
        const ok = kids.filter((k): k is Beam => !!k);
        if (ok.length === 0) continue; // the subtree dies: no child could be graded
        const best = ok.reduce((a, b) => (b.score > a.score ? b : a));
        if (best.done) res.finished.push(best);
        else next.push(best);
      }
      open = next;
    } else {
      const all = children.flat().filter((k): k is Beam => !!k);
      res.finished.push(...all.filter((k) => k.done));
      open = all
        .filter((k) => !k.done)
        .sort((a, b) => b.score - a.score)
        .slice(0, keep);
    }
    if (open.length > 0) lastOpen = open;
  }
  res.finished.sort((a, b) => b.score - a.score);
  res.best = res.finished[0] ?? [...lastOpen].filter((b) => b !== root).sort((a, b) => b.score - a.score)[0];
  return res;
}
