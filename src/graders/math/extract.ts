// Finds the final answer in free-form text (a model output or a full reference solution):
// <answer> tags, the last \boxed{}/\fbox{} (adjacent boxes joined), "final answer is",
// "the answer is", "Answer:"/"A:" lines, "#### N", markdown bold, a short whole answer, and
// the last number as a fallback. A leading <think>...</think> block is skipped.
export type ExtractMethod = 'answer_tag' | 'boxed' | 'answer_phrase' | 'answer_line' | 'hash' | 'bold' | 'whole' | 'last_number' | 'choice';

export interface Extracted {
  text: string;
  method: ExtractMethod;
}

export interface ExtractOptions {
  /** Use the last number in the text when nothing else marks the answer (default true). */
  last_number?: boolean;
  /** Skip a leading <think>...</think> block (default true). */
  skip_think?: boolean;
  /** Treat a short text without markers as the answer itself (default true). */
  whole?: boolean;
}

/** Strips a leading reasoning block; returns undefined when the block never closes (no answer given). */
export function stripThink(text: string): string | undefined {
  const open = /^\s*<(think|thinking|reasoning)>/i.exec(text);
  const closeIdx = text.lastIndexOf('</think>');
  if (open) {
    const close = text.lastIndexOf(`</${open[1]}>`);
    if (close < 0) return undefined;
    return text.slice(close + open[1]!.length + 3);
  }
  // chat templates that put <think> in the prompt leave only the closing tag in the output
  if (closeIdx >= 0 && !text.slice(0, closeIdx).includes('<think>')) return text.slice(closeIdx + 8);
  return text;
}

const MAX_JOINED_BOXES = 16;
const MAX_BOX_TRIES = 64;

interface Box {
  start: number;
  end: number;
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
    return undefined; // unclosed box: not an answer
  }
  if (i === start + nameLen) return undefined;
  const mm = /^[^\s$]+/.exec(text.slice(i, i + 200));
  return mm ? { start, end: i + mm[0].length, content: mm[0] } : undefined;
}

/** The last boxes, searched backwards with lastIndexOf (at most MAX_BOX_TRIES starts are examined). */
function lastBoxes(text: string): Box[] {
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

/** Text allowed between boxes that together form one answer ("\\boxed{1} and \\boxed{2}"); "or" marks alternatives instead. */
const BOX_GAP = /^[\s$,;.]*(?:(?:and|,|\\text\{\s*(?:and|,)\s*\}|\\quad|\\qquad)[\s$,;.]*)?$/;

function lastBoxed(text: string): string | undefined {
  if (!text.includes('\\boxed') && !text.includes('\\fbox')) return undefined;
  const boxes = lastBoxes(text);
  if (!boxes.length) return undefined;
  const parts = [boxes[boxes.length - 1]!.content];
  for (let k = boxes.length - 2; k >= 0 && parts.length < MAX_JOINED_BOXES; k--) {
    const gap = text.slice(boxes[k]!.end, boxes[k + 1]!.start);
    if (gap.length > 40 || !BOX_GAP.test(gap)) break;
    parts.unshift(boxes[k]!.content);
  }
  return parts.join(', ');
}

const ANSWER_AT = /answer\s*(?:is|:|=|would\s+be|will\s+be)\s*:?\s*/iy;

/** The rest of the line from index `from` (at most 4000 characters). */
function lineAt(text: string, from: number): string {
  const nl = text.indexOf('\n', from);
  return text.slice(from, nl < 0 ? Math.min(text.length, from + 4000) : Math.min(nl, from + 4000));
}

/** The rest of the sentence after a marker: math delimiters kept whole, cut at a sentence end. */
function sentenceAfter(text: string, from: number): string {
  let s = text.slice(from, from + 4000);
  s = s.replace(/^\s+/, '');
  const delim = /^(\$\$|\$|\\\(|\\\[)/.exec(s);
  if (delim) {
    const close = delim[1] === '$$' ? '$$' : delim[1] === '$' ? '$' : delim[1] === '\\(' ? '\\)' : '\\]';
    let end = s.indexOf(close, delim[1]!.length);
    while (end > 0 && s[end - 1] === '\\' && close[0] === '$') end = s.indexOf(close, end + 1); // \$ is a dollar sign
    if (end > 0) return s.slice(delim[1]!.length, end);
  }
  const nl = s.indexOf('\n');
  if (nl >= 0) s = s.slice(0, nl);
  const stop = /\.(?=\s|$)(?<!\d\.(?=\d))|(?<=\S)\s+(?:because|since|which|as|so|and\s+(?:the|this|that|it))\b/i.exec(s);
  if (stop) s = s.slice(0, stop.index);
  return s;
}

/** Trims markup around a candidate: bold markers, math delimiters, sentence punctuation ("!" only in prose). */
function cleanCandidate(s: string, prose = false): string {
  let t = s.trim();
  for (let k = 0; k < 3; k++) {
    const before = t;
    t = t.replace(/^\*\*|\*\*$/g, '').trim();
    t = t.replace(/^(?:\\\(|\\\[|\$\$?)|(?:\\\)|\\\]|(?<!\\)\$\$?)$/g, '').trim();
    t = t.replace(prose ? /[.;:!?,]+$/ : /[.;:?,]+$/, '').trim();
    if (t === before) break;
  }
  return t;
}

/** "A: 2000 hours * $15/hour = $30,000" -> "$30,000": the value after the last "=" of a worked line. */
function afterLastEquals(s: string): string {
  const t = s.replace(/<<[^<>]*>>/g, '');
  const eq = t.lastIndexOf('=');
  if (eq < 0 || t.slice(0, eq).includes('<') || t.slice(0, eq).includes('>')) return t;
  const lhs = t.slice(0, eq).trim();
  if (/^[A-Za-z](?:_\w+)?$/.test(lhs)) return t; // x = 5 stays an equation
  return t.slice(eq + 1);
}

const LAST_NUMBER = /-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*\/\s*\d+)?/g;

function lastNumber(text: string): string | undefined {
  // scan the tail only: the last number sits near the end, and this keeps 1 MB outputs cheap
  const tail = text.length > 2000 ? text.slice(-2000) : text;
  let last: string | undefined;
  for (const m of tail.matchAll(LAST_NUMBER)) last = m[0];
  if (last !== undefined && text.length > 2000 && tail.startsWith(last.replace(/^-/, ''))) {
    // the number may continue before the tail window: take the whole digit run
    let i = text.length - tail.length;
    for (let c = text.charCodeAt(i - 1); i > 0 && ((c >= 48 && c <= 57) || c === 44 || c === 46); c = text.charCodeAt(--i - 1));
    const m = /^-?[\d,.]+/.exec(text.slice(i));
    if (m) last = m[0];
  }
  return last;
}

/** Text that reads like a bare answer rather than prose. */
function looksLikeBareAnswer(s: string): boolean {
  if (s.length > 120 || s.includes('\n')) return false;
  const prose = s.replace(/\\[A-Za-z]+(\{[^{}]*\})?/g, ' ');
  return !/[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(prose);
}

/**
 * Extracts the final answer. `reference` mode never falls back to the last number: a reference
 * without markers is taken whole.
 */
export function extractAnswer(text: string, opts: ExtractOptions = {}, role: 'output' | 'reference' = 'output'): Extracted | undefined {
  let body: string | undefined = text;
  if (opts.skip_think !== false) {
    body = stripThink(text);
    if (body === undefined) return undefined;
  }
  // <answer>...</answer>
  const tagStart = body.lastIndexOf('<answer>');
  if (tagStart >= 0) {
    const close = body.indexOf('</answer>', tagStart);
    const inner = body.slice(tagStart + 8, close < 0 ? undefined : close);
    const nested = extractMarked(inner);
    const t = cleanCandidate(nested?.text ?? inner);
    if (t) return { text: t, method: 'answer_tag' };
  }
  const marked = extractMarked(body);
  if (marked) return marked;
  if (role === 'reference') {
    const whole = cleanCandidate(body);
    return whole ? { text: whole, method: 'whole' } : undefined;
  }
  // a bolded number/expression beats the whole-text reading ("so **73**" is 73, not "so **73")
  const bold = lastBold(body);
  if (bold) return { text: bold, method: 'bold' };
  const trimmed = body.length <= 400 ? cleanCandidate(body) : '';
  if (opts.whole !== false && trimmed && looksLikeBareAnswer(trimmed)) return { text: trimmed, method: 'whole' };
  if (opts.last_number !== false) {
    const n = lastNumber(body);
    if (n !== undefined) return { text: n, method: 'last_number' };
  }
  return undefined;
}

const MAX_CANDIDATES = 8;

function extractMarked(body: string): Extracted | undefined {
  const boxed = lastBoxed(body);
  if (boxed !== undefined) {
    const t = cleanCandidate(boxed);
    if (t) return { text: t, method: 'boxed' };
  }
  // the last of: "the answer is X", "Answer: X" / "A: X" lines, "#### X"
  // markers are searched from the end backwards (lastIndexOf), so a long output costs one pass
  const found: { at: number; get: () => string; method: ExtractMethod }[] = [];
  const lower = body.length > 200_000 || /answer/i.test(body) ? body.toLowerCase() : '';
  for (let from = lower.length, n = 0; n < MAX_CANDIDATES && from >= 0; n++) {
    const p = lower.lastIndexOf('answer', from);
    if (p < 0) break;
    from = p - 1;
    ANSWER_AT.lastIndex = p;
    const m = ANSWER_AT.exec(body);
    if (m) {
      found.push({ at: p, get: () => cleanCandidate(sentenceAfter(body, p + m[0].length), true), method: 'answer_phrase' });
      break;
    }
  }
  for (let from = body.length, n = 0; n < MAX_CANDIDATES && from >= 0; n++) {
    const p = body.lastIndexOf('A:', from);
    if (p < 0) break;
    from = p - 1;
    let q = p;
    while (q > 0 && (body[q - 1] === ' ' || body[q - 1] === '\t')) q--;
    if (q === 0 || body[q - 1] === '\n') {
      found.push({ at: p, get: () => cleanCandidate(afterLastEquals(lineAt(body, p + 2)), true), method: 'answer_line' });
      break;
    }
  }
  const h = body.lastIndexOf('####');
  if (h >= 0) found.push({ at: h, get: () => cleanCandidate(afterLastEquals(lineAt(body, h + 4)), true), method: 'hash' });
  found.sort((a, b) => b.at - a.at);
  for (const f of found) {
    const t = f.get();
    if (t) return { text: t, method: f.method };
  }
  return undefined;
}

function lastBold(body: string): string | undefined {
  if (!body.includes('**')) return undefined;
  let last: string | undefined;
  for (const m of body.matchAll(/\*\*([^*\n]{1,80})\*\*/g)) {
    const t = cleanCandidate(m[1]!);
    if (/\d|\\/.test(t)) last = t;
  }
  return last;
}

const CHOICE = /^\(?\s*([A-J])\s*\)?$/;

/** The letter of a multiple-choice answer written as `B`, `(B)`, `\text{(B)}`, `B)`, or undefined. */
export function choiceLetter(s: string): string | undefined {
  const t = s
    .replace(/\\(?:text|textbf|mathrm|mbox)\s*\{([^{}]*)\}/g, '$1')
    .replace(/[{}$*]/g, '')
    .trim();
  const m = CHOICE.exec(t) ?? /^\(?([A-J])[).:]\s/.exec(t + ' ');
  return m?.[1];
}

/** Finds a multiple-choice letter in a model output (the reference being a letter). */
export function extractChoice(text: string, opts: ExtractOptions = {}): Extracted | undefined {
  let body: string | undefined = text;
  if (opts.skip_think !== false) body = stripThink(text);
  if (body === undefined) return undefined;
  const marked = extractMarked(body);
  if (marked) {
    const l = choiceLetter(marked.text) ?? /^\(?([A-J])\)?(?=[\s.,:)]|$)/.exec(marked.text.trim())?.[1];
    if (l) return { text: l, method: 'choice' };
  }
  const tail = body.length > 4000 ? body.slice(-4000) : body;
  let last: string | undefined;
  for (const m of tail.matchAll(/\(([A-J])\)|(?:^|\n)\s*([A-J])\)|(?:answer|option|choice)\s*(?:is\s*)?:?\s*\(?([A-J])\b/gi)) last = (m[1] ?? m[2] ?? m[3])!.toUpperCase();
  if (last) return { text: last, method: 'choice' };
  const whole = choiceLetter(body.trim());
  return whole ? { text: whole, method: 'choice' } : undefined;
}
