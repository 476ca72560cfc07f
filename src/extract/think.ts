// Reasoning blocks (<think>…</think> and friends) in model outputs, two ways:
// - stripThink drops a leading reasoning block (or everything up to a lone </think>, when the chat
//   template put <think> in the prompt); a block that never closes means no answer was given.
// - maskReasoning hides every reasoning block without moving any character: hidden text becomes
//   spaces (newlines kept), so offsets still point into the raw output (judges need them to find
//   the verdict's token for logprob scores). A draft verdict inside a think block is never read;
//   an unclosed block hides everything after it.

const TAGS = ['think', 'thinking', 'reasoning', 'thought', 'reflection', 'scratchpad'];
const OPEN = new RegExp(`<(${TAGS.join('|')})>`, 'gi');

export interface Masked {
  /** Same length as the input; reasoning replaced by spaces. */
  text: string;
  /** True when a reasoning block was opened and never closed (the answer was cut off). */
  unterminated: boolean;
  /** True when any reasoning was hidden. */
  hadReasoning: boolean;
}

function blank(s: string): string {
  return s.replace(/[^\n]/g, ' ');
}

export function maskReasoning(text: string): Masked {
  let out = text;
  let unterminated = false;
  let hadReasoning = false;
  // A closing tag before any opening one: the template put the opening tag in the prompt
  // (DeepSeek-R1, QwQ); everything before the first close is reasoning.
  const firstClose = /<\/(think|thinking|reasoning|thought|reflection|scratchpad)>/i.exec(out);
  OPEN.lastIndex = 0;
  const firstOpen = OPEN.exec(out);
  if (firstClose && (!firstOpen || firstClose.index < firstOpen.index)) {
    const end = firstClose.index + firstClose[0].length;
    out = blank(out.slice(0, end)) + out.slice(end);
    hadReasoning = true;
  }
  // Paired blocks, outermost first; nested same-name tags close at the last matching close.
  for (;;) {
    OPEN.lastIndex = 0;
    const m = OPEN.exec(out);
    if (!m) break;
    hadReasoning = true;
    const tag = m[1]!.toLowerCase();
    const closeRe = new RegExp(`</${tag}>`, 'gi');
    closeRe.lastIndex = m.index + m[0].length;
    const c = closeRe.exec(out);
    if (!c) {
      unterminated = true;
      out = out.slice(0, m.index) + blank(out.slice(m.index));
      break;
    }
    const end = c.index + c[0].length;
    out = out.slice(0, m.index) + blank(out.slice(m.index, end)) + out.slice(end);
  }
  return { text: out, unterminated, hadReasoning };
}

/** Strips a leading reasoning block; returns undefined when the block never closes (no answer given). */
export function stripThink(text: string): string | undefined {
  const open = /^\s*<(think|thinking|reasoning)>/i.exec(text);
  // indexOf first: V8's lastIndexOf walks back one character at a time (about 4 times slower), and
  // most texts have no close at all
  const closeIdx = text.indexOf('</think>') < 0 ? -1 : text.lastIndexOf('</think>');
  if (open) {
    const close = text.lastIndexOf(`</${open[1]}>`);
    if (close < 0) return undefined;
    return text.slice(close + open[1]!.length + 3);
  }
  // chat templates that put <think> in the prompt leave only the closing tag in the output
  if (closeIdx >= 0 && !text.slice(0, closeIdx).includes('<think>')) return text.slice(closeIdx + 8);
  return text;
}

/** What to do with reasoning before the answer is read: `strip` (stripThink) or `keep` the text as is. */
export type ThinkMode = 'strip' | 'keep';

/** The text with reasoning handled per `mode`; undefined when stripping finds an unterminated block. */
export function applyThink(text: string, mode: ThinkMode): string | undefined {
  return mode === 'strip' ? stripThink(text) : text;
}
