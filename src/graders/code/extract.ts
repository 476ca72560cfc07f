// Pulls the program out of a model output: the last fenced block tagged with the language,
// else the last untagged block, else the last block of any tag; the whole text when there is
// no fence. An unterminated final fence (a truncated answer) counts up to the end of the text.
import { languageByName, type LanguageName } from '../../sandbox/languages.js';

export interface Extracted {
  code: string;
  /** Where the code came from: a fenced block or the whole output. */
  from: 'fence' | 'whole';
  tag?: string;
}

interface Block {
  tag: string;
  body: string;
}

const OPEN = /^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*$/;

function blocks(text: string): Block[] {
  const out: Block[] = [];
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

export function extractCode(text: string, language: LanguageName): Extracted {
  const bs = blocks(text);
  if (bs.length === 0) return { code: text, from: 'whole' };
  const pick =
    [...bs].reverse().find((b) => b.tag !== '' && languageByName(b.tag)?.name === language) ??
    [...bs].reverse().find((b) => b.tag === '') ??
    bs[bs.length - 1]!;
  return pick.tag ? { code: pick.body, from: 'fence', tag: pick.tag } : { code: pick.body, from: 'fence' };
}
