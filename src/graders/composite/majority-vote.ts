// `majority_vote`: TTRL-style label-free rewards. Each response's final answer is extracted (the
// math grader's answer finder without its whole-text fallback, or the last \boxed{}); the most
// common answer of the group (answers that are mathematically equivalent vote together with vote
// "math"; identical text only with vote "exact", TTRL's string counter) becomes the label, placed
// in item.<label_field>, and the sub-grader grades every response against it. Ties go to the answer
// seen first in input order. The vote share (votes for the label / responses in the group) is
// reported with each result. The vote is read through the extraction layer first (`extract.think`,
// default `strip`: an answer drafted in the reasoning is not the response's vote).
// A group stage: only at the root, graded through gradeGroup / POST /v1/groups.
import { z } from 'zod';
import type { Grader } from '../../core/grader.js';
import { childFailure, GradeFailure } from '../../core/result.js';
import { describe } from '../../core/sample.js';
import { renderValue, type Template } from '../../core/template.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { lastBoxes } from '../../extract/boxed.js';
import { extractSchema, readText, resolveExtract, type ExtractSettings } from '../../extract/index.js';
import { extractAnswer, verifyMath } from '../math/index.js';
import { inGroupStage, needsGroup, registerGroupStage } from './group-stage.js';

const schema = graderSchema({
  /** The sub-grader that checks a response against the label, e.g. {"type": "math", "reference": "{{item.majority_label}}"}. */
  grader: z.unknown(),
  /** The response text the answer is extracted from (default "{{sample.output_text}}"). */
  input: z.string().min(1).optional(),
  /** How the final answer is found: "math" (the math grader's finder: boxed, "the answer is", ...; default) or "boxed" (the last \boxed{}). */
  answer: z.enum(['math', 'boxed']).optional(),
  /** think `strip` (default: a reasoning block that never closes gives no vote) or `keep`; from `auto` (the `answer` finder). */
  extract: extractSchema(['auto'] as const),
  /** How answers are counted: "math" (equivalent answers vote together; default when the sub-grader is math) or "exact" (identical text). */
  vote: z.enum(['math', 'exact']).optional(),
  /** The item field the label is placed in for the sub-grader (default "majority_label"). */
  label_field: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional(),
  /** Optional gold answer (a template such as "{{item.answer}}"): reports whether the label is right (TTRL's label accuracy); never used for the reward. */
  gold: z.string().min(1).optional(),
});
type Config = z.infer<typeof schema>;

interface Instance {
  child: Grader;
  field: string;
  vote: 'math' | 'exact';
  gold?: Template;
}

const instances = new WeakMap<object, Instance>();

function findAnswer(raw: string, how: 'math' | 'boxed', extract: ExtractSettings<'auto'>): string | undefined {
  const got = readText(raw, { think: extract.think, from: 'whole' });
  if (!got.ok) return undefined;
  const text = got.text;
  if (how === 'boxed') {
    const b = lastBoxes(text)[0];
    const t = b?.content.trim();
    return t ? t : undefined;
  }
  // the whole text of a short response is not a vote: a group of identical non-answers ("hmm")
  // would otherwise agree with itself and be rewarded; a vote is an answer the response marks or states
  const e = extractAnswer(text, { whole: false, skip_think: false });
  const t = e?.text.trim();
  return t ? t : undefined;
}

const same = (a: string, b: string, vote: 'math' | 'exact'): boolean => {
  if (a.replace(/\s+/g, '') === b.replace(/\s+/g, '')) return true;
  return vote === 'math' && verifyMath(a, b).score === 1;
};

export const majorityVote: GraderType<Config> = {
  type: 'majority_vote',
  summary: "TTRL-style label-free reward: the group's most common final answer becomes the label a sub-grader checks each response against",
  capabilities: PURE,
  schema,
  build(cfg, b) {
    if (cfg.grader === undefined) b.fail('grader', 'required sub-grader "grader" is missing (e.g. {"type": "math", "reference": "{{item.majority_label}}"})');
    if (b.path !== '') b.fail('type', `majority_vote needs the whole group, so it must be the root grader (it is at ${b.path})`);
    const child = b.child(cfg.grader, 'grader', 'grader');
    const field = cfg.label_field ?? 'majority_label';
    if (!JSON.stringify(cfg.grader).includes(`item.${field}`))
      b.issue('grader', `the sub-grader never reads {{item.${field}}}, so it would not check against the vote (e.g. "reference": "{{item.${field}}}")`);
    const childType = (cfg.grader as { type?: unknown } | null)?.type;
    const vote = cfg.vote ?? (childType === 'math' ? 'math' : 'exact');
    const input = b.template('input', cfg.input ?? '{{sample.output_text}}');
    const how = cfg.answer ?? 'math';
    const extract = resolveExtract(cfg.extract, { think: 'strip', from: 'auto' });
    const inst: Instance = { child, field, vote };
    if (cfg.gold !== undefined) inst.gold = b.template('gold', cfg.gold);
    instances.set(cfg, inst);
    const name = b.name;
    return (s, ctx) => {
      if (!inGroupStage(ctx)) throw needsGroup(name, 'takes the most common answer');
      const text = renderValue(input, s);
      if (typeof text !== 'string')
        throw new GradeFailure('bad_input', `input ${cfg.input ?? '{{sample.output_text}}'} rendered to ${describe(text)}, not text`);
      const answer = findAnswer(text, how, extract) ?? null;
      return { score: 0, reason: 'graded against the majority answer when graded as a group', metadata: { answer, group_stage: 'pending' } };
    };
  },
};

registerGroupStage('majority_vote', async (config, results, scope) => {
  const inst = instances.get(config);
  if (!inst) throw new Error('majority_vote: group stage for a config that was not built');
  const live: number[] = [];
  results.forEach((r, i) => {
    if (r.valid && r.metadata.group_stage === 'pending' && scope.inputs[i]) live.push(i);
  });
  if (live.length === 0) return;
  const n = results.length;
  if (n < 2) {
    for (const i of live)
      Object.assign(results[i]!, {
        score: null,
        valid: false,
        error: { kind: 'bad_input', message: 'majority_vote needs at least 2 responses to the same prompt (uid), this group has 1' },
      });
    return;
  }
  // clusters of answers that vote together, in the order their first answer appears
  const clusters: { label: string; votes: number }[] = [];
  const memberCluster = new Map<number, number>();
  for (const i of live) {
    const a = results[i]!.metadata.answer as string | null;
    if (a === null) continue;
    let c = clusters.findIndex((k) => same(a, k.label, inst.vote));
    if (c < 0) c = clusters.push({ label: a, votes: 0 }) - 1;
    clusters[c]!.votes++;
    memberCluster.set(i, c);
  }
  let win = -1;
  clusters.forEach((k, c) => {
    if (win < 0 || k.votes > clusters[win]!.votes) win = c;
  });
  const voters = memberCluster.size;
  if (win < 0) {
    for (const i of live) {
      const r = results[i]!;
      r.score = 0;
      r.reason = `no response in the group has a final answer, so there is no majority label: 0`;
      Object.assign(r.metadata, { group_stage: 'done', majority_label: null, vote_share: 0, votes: 0, voters: 0, group_n: n });
    }
    return;
  }
  const label = clusters[win]!.label;
  const votes = clusters[win]!.votes;
  const tie = clusters.some((k, c) => c !== win && k.votes === votes);
  const share = votes / n;
  let labelCorrect: boolean | null | undefined;
  if (inst.gold) {
    const g = renderValue(inst.gold, scope.inputs[live[0]!]!);
    labelCorrect = typeof g === 'string' || typeof g === 'number' ? same(label, String(g), 'math') : null;
  }
  const graded = await Promise.all(
    live.map((i) => {
      const input = scope.inputs[i]!;
      return inst.child.grade({ ...input, item: { ...input.item, [inst.field]: label } }, scope.ctx);
    }),
  );
  live.forEach((i, j) => {
    const r = results[i]!;
    const c = graded[j]!;
    const meta = {
      group_stage: 'done',
      majority_label: label,
      vote_share: share,
      votes,
      voters,
      group_n: n,
      clusters: clusters.length,
      ...(tie ? { tie: true } : {}),
      ...(labelCorrect !== undefined ? { label_correct: labelCorrect } : {}),
    };
    r.components = { [inst.child.name]: c };
    if (!c.valid || c.score === null) {
      const f = childFailure(`sub-grader "${inst.child.name}"`, c, r.components);
      Object.assign(r, { score: null, valid: false, error: { kind: f.kind, message: f.message } });
      Object.assign(r.metadata, meta, { group_stage: 'failed' });
      return;
    }
    r.score = c.score;
    r.reason = `${c.score} against the majority answer ${JSON.stringify(label)} (${votes} of ${n} votes${tie ? ', tied: first seen wins' : ''})`;
    Object.assign(r.metadata, meta);
  });
});
