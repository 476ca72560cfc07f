// Fenced code blocks (``` or ~~~, CommonMark-style openers indented up to 3 spaces, a closing fence
// of the same character at least as long) in model outputs. An unterminated final fence (a
// truncated answer) counts up to the end of the text, trailing blank lines dropped. Also the
// first ```json / untagged fence that JSON checks read.

export interface FencedBlock {
  /** The info string's first word, lower-cased ('' when untagged). */
  tag: string;
  body: string;
}

const OPEN = /^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*$/;

export function fencedBlocks(text: string): FencedBlock[] {
  const out: FencedBlock[] = [];
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length) {
    const m = OPEN.exec(lines[i]!);
    if (!m) {
      i++;
      continue;
    }
    const fence = m[1]!;
    const tag = (m[2] ?? '').toLowerCase();
    const body: string[] = [];
    let j = i + 1;
    let closed = false;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      const t = l.trim();
      if (t.startsWith(fence[0]!.repeat(fence.length)) && /^[`~]+$/.test(t)) {
        closed = true;
        break;
      }
      body.push(l);
    }
    if (!closed) while (body.length && body[body.length - 1]!.trim() === '') body.pop();
    out.push({ tag, body: body.join('\n') });
    i = closed ? j + 1 : j;
  }
  return out;
}

/**
 * The block a program is read from: the last block whose tag `wanted` accepts, else the last
 * untagged block, else the last block of any tag; undefined when the text has no fence.
 */
export function pickFencedBlock(text: string, wanted: (tag: string) => boolean): FencedBlock | undefined {
  const bs = fencedBlocks(text);
  if (bs.length === 0) return undefined;
  return [...bs].reverse().find((b) => b.tag !== '' && wanted(b.tag)) ?? [...bs].reverse().find((b) => b.tag === '') ?? bs[bs.length - 1]!;
}

const JSON_FENCE = /```[ \t]*(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?```/;

/** The body of the first closed ```json (or untagged) fence, or undefined. */
export function jsonFenceBody(text: string): string | undefined {
  const m = JSON_FENCE.exec(text);
  return m ? m[1]! : undefined;
}
