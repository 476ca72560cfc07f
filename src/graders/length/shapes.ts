// Reward shapes over a normalised distance x in [0, 1]: 1 at x = 0 falling to 0 at x = 1, either
// linearly or along a half cosine, 0.5 * (1 + cos(pi * x)) — the cosine length-scaling reward of
// Yeo et al. 2025, "Demystifying Long Chain-of-Thought Reasoning in LLMs" (arXiv:2502.03373), eq. 1.

export type Shape = 'linear' | 'cosine';

export function shape(kind: Shape, x: number): number {
  const t = Math.min(1, Math.max(0, x));
  return kind === 'linear' ? 1 - t : 0.5 * (1 + Math.cos(Math.PI * t));
}

/** Score between `near` (x = 0) and `far` (x = 1). */
export function shaped(kind: Shape, x: number, near: number, far: number): number {
  return far + (near - far) * shape(kind, x);
}
