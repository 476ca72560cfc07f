// Strict and loose IFEval verdicts for one response: strict checks the response as is; loose
// also accepts it with its first line, last line or both removed, and with every `*` removed.
import { pyStrip } from './pytext.js';
import type { BuiltInstruction } from './registry.js';
import type { CheckContext } from './types.js';

export type IfevalMode = 'strict' | 'loose';

/** The response variants the reference tries in loose mode, in its order. */
export function looseVariants(response: string): string[] {
  const lines = response.split('\n');
  const removeFirst = pyStrip(lines.slice(1).join('\n'));
  const removeLast = pyStrip(lines.slice(0, -1).join('\n'));
  const removeBoth = pyStrip(lines.slice(1, -1).join('\n'));
  const noStars = (s: string) => s.replaceAll('*', '');
  return [response, noStars(response), removeFirst, removeLast, removeBoth, noStars(removeFirst), noStars(removeLast), noStars(removeBoth)];
}

/** One verdict per instruction, in order. An empty (whitespace-only) response follows nothing. */
export function followVerdicts(response: string, instructions: BuiltInstruction[], mode: IfevalMode, ctx: CheckContext): boolean[] {
  const variants = (mode === 'strict' ? [response] : looseVariants(response)).filter((v) => pyStrip(v).length > 0);
  return instructions.map((ins) => variants.some((v) => ins.check(v, ctx)));
}
