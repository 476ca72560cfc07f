// \boxed{} / \fbox{} answers: the last boxes of a text, scanned backwards with lastIndexOf and an
// iterative brace matcher (no recursion, a bounded number of tries), outermost box dropped when it
// wraps a later one. Each box has its span, so callers can decide which boxes form one answer.

/** At most this many boxes are returned (and joined into one answer by callers). */
export const MAX_JOINED_BOXES = 16;
const MAX_BOX_TRIES = 64;

export interface Box {
  start: number;
  end: number;
  /** The text inside the braces (or the bare token after `\\boxed `). */
  content: string;
}

/** The box starting at `start` (`\\boxed{...}`, `\\fbox{...}`, `\\boxed 5`); braces are scanned iteratively, no recursion. */
function boxAt(text: string, start: number, nameLen: number): Box | undefined {
  let i = start + nameLen;
  while (text[i] === ' ') i++;
  if (text[i] === '{') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const ch = text.charCodeAt(j);
      if (ch === 92) {
        j++;
        continue;
      }
      if (ch === 123) depth++;
      else if (ch === 125 && --depth === 0) return { start, end: j + 1, content: text.slice(i + 1, j) };
    }
    return undefined; // unclosed box: not an answer (a caller may take the rest, as math does for a reference)
  }
  if (i === start + nameLen) return undefined;
  const mm = /^[^\s$]+/.exec(text.slice(i, i + 200));
  return mm ? { start, end: i + mm[0].length, content: mm[0] } : undefined;
}

/** The last boxes, searched backwards with lastIndexOf (at most MAX_BOX_TRIES starts are examined). */
export function lastBoxes(text: string): Box[] {
  const boxes: Box[] = [];
  let fromB = text.length;
  let fromF = text.length;
  for (let tries = 0; tries < MAX_BOX_TRIES && boxes.length < MAX_JOINED_BOXES; tries++) {
    const b = fromB < 0 ? -1 : text.lastIndexOf('\\boxed', fromB);
    const f = fromF < 0 ? -1 : text.lastIndexOf('\\fbox', fromF);
    if (b < 0 && f < 0) break;
    let box: Box | undefined;
    if (b > f) {
      fromB = b - 1;
      box = boxAt(text, b, 6);
    } else {
      fromF = f - 1;
      box = boxAt(text, f, 5);
    }
    if (!box) continue;
    if (boxes.length && box.end > boxes[0]!.start) continue; // a box around a later box: keep the inner one
    boxes.unshift(box);
  }
  return boxes;
}
