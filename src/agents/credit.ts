// Turn-level credit shared by the environment families: the weights of a turn's reward (progress
// gained, tool errors, the final reward on the last turn) and the GiGPO anchor id of the state a
// turn acted in (turns of one task's trajectories with equal anchors form a step group).
import { createHash } from 'node:crypto';

/** Weights of the per-turn reward: progress change, tool errors, and the final reward on the last turn. */
export interface StepWeights {
  progress: number;
  tool_error: number;
  outcome: number;
}

export const DEFAULT_STEP_WEIGHTS: Readonly<StepWeights> = Object.freeze({ progress: 0.5, tool_error: 0.1, outcome: 1 });

/** A 16-hex-digit id of the parts (sha256 of them joined by NUL). */
export function anchorId(parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16);
}
