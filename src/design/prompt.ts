// The messages of `arbiter design`, as Eureka's loop builds them: a system prompt on what to write,
// a first user turn with the task, the trajectory schema read from the data and one example; from
// the second iteration on, the best reply of the last iteration (of the latest one in which a
// candidate worked) as the assistant's turn and the reward reflection
// (its fitness, each component's statistics and correlation with the label) as the next user turn,
// together with the errors of the candidates that failed in the last iteration.
import type { ChatMessage } from '../models/types.js';
import type { ComponentStats, FitnessKind, RankMethod } from './fitness.js';

export const SYSTEM_PROMPT = `You are a reward engineer. You write reward functions that score an agent's trajectories so that better behaviour at the task gets a higher reward.
Write one Python function

    def reward(trajectory):

that takes one trajectory (a JSON value: dicts, lists, str, int, float, bool, None) and returns one of:
- a float: the trajectory's total reward;
- a list of floats: one reward per step (the total is their sum);
- a pair (total, {"component_name": value, ...}): the total and the parts it is made of, so that each part can be reported back to you.
Use only the Python standard library. Do not print; do not read files or the network. Put the whole program (imports, helpers and reward) in one \`\`\`python fenced block.`;

const FITNESS_TEXT: Record<FitnessKind, (label: string, rank: RankMethod) => string> = {
  preference: () =>
    'agreement with pairwise preferences between trajectories (the fraction of preferred pairs the total orders right; equal totals count one half)',
  rank: (label, rank) => `the ${rank === 'kendall' ? "Kendall's tau-b" : 'Spearman'} rank correlation of the total with the label "${label}"`,
  separation: (label) => `how well the total separates trajectories whose "${label}" is true from the others (ROC AUC; 0.5 is chance)`,
};

export function fitnessText(kind: FitnessKind, label: string, rank: RankMethod = 'spearman'): string {
  return FITNESS_TEXT[kind](label, rank);
}

export function firstUserTurn(task: string, schema: string, example: string, kind: FitnessKind, label: string, rank: RankMethod = 'spearman'): string {
  return [
    'Task description:',
    task.trim(),
    '',
    'The trajectory passed to reward() has these fields (read from the data; lists shown as []):',
    schema,
    '',
    'One trajectory of the data (JSON, cut if long):',
    example,
    '',
    `Your reward function will be judged by ${fitnessText(kind, label, rank)}.`,
    'Write reward(trajectory).',
  ].join('\n');
}

export interface Reflection {
  iteration: number;
  index: number;
  fitness: number;
  fitnessDetail: Record<string, number>;
  /** Statistics of the total and of each component over the trajectories. */
  stats: Record<string, ComponentStats>;
  trajectories: number;
}

export interface Failure {
  iteration: number;
  index: number;
  error: string;
}

const n4 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : String(Number(x.toFixed(4))));

/** The reward reflection of the best candidate so far, Eureka style. */
export function reflectionText(r: Reflection, kind: FitnessKind, label: string, rank: RankMethod = 'spearman'): string {
  const lines = [
    `We ran the reward function above (iteration ${r.iteration}, candidate ${r.index + 1}) over the ${r.trajectories} trajectories.`,
    `Fitness, ${fitnessText(kind, label, rank)}: ${n4(r.fitness)} (${Object.entries(r.fitnessDetail)
      .map(([k, v]) => `${k} ${n4(v)}`)
      .join(', ')}).`,
    `Values over the trajectories (correlation: Pearson with "${label}"):`,
  ];
  for (const [name, s] of Object.entries(r.stats))
    lines.push(`- ${name}: mean ${n4(s.mean)}, std ${n4(s.std)}, min ${n4(s.min)}, max ${n4(s.max)}, correlation ${n4(s.corr_with_label)}`);
  lines.push(
    'Please analyse this feedback and write a new, improved reward function. Some helpful tips:',
    '(1) a component with almost no spread (std near 0) does not tell trajectories apart: rescale it, change it or drop it;',
    '(2) a component that correlates negatively with the label may have the wrong sign or the wrong form;',
    '(3) a component much larger than the others drowns them out: rescale it.',
  );
  return lines.join('\n');
}

export function failuresText(fails: readonly Failure[]): string {
  if (!fails.length) return '';
  return [
    'These candidates of the last iteration failed; do not repeat their mistakes:',
    ...fails.map((f) => `- iteration ${f.iteration}, candidate ${f.index + 1}: ${f.error}`),
  ].join('\n');
}

/**
 * The messages of an iteration: [system, first turn] while no candidate has worked (with the last
 * iteration's errors added to the first turn), else [system, first turn, the best reply, its
 * reflection and the last iteration's errors].
 */
export function iterationMessages(first: string, best: { reply: string; reflection: string } | undefined, fails: readonly Failure[]): ChatMessage[] {
  const errors = failuresText(fails);
  const msgs: ChatMessage[] = [{ role: 'system', content: SYSTEM_PROMPT }];
  if (!best) {
    msgs.push({ role: 'user', content: errors ? `${first}\n\n${errors}` : first });
    return msgs;
  }
  msgs.push(
    { role: 'user', content: first },
    { role: 'assistant', content: best.reply },
    { role: 'user', content: errors ? `${best.reflection}\n\n${errors}` : best.reflection },
  );
  return msgs;
}
