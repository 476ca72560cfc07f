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

interface Box {
  start: number;
  end: number;
  content: string;
}

/** Every \boxed{...} / \fbox{...} (also `\boxed 5`), scanning braces iteratively (no recursion). */
function findBoxes(text: string): Box[] {
  const boxes: Box[] = [];
  const re = /\\(?:boxed|fbox)\s*/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    let i = m.index + m[0].length;
    if (text[i] === '{') {
      let depth = 0;
      let j = i;
      for (; j < text.length; j++) {
        const ch = text[j];
        if (ch === '\\') {
          j++;
          continue;
        }
        if (ch === '{') depth++;
        else if (ch === '}' && --depth === 0) break;
      }
      if (j >= text.length) continue; // unclosed box: not an answer
      boxes.push({ start: m.index, end: j + 1, content: text.slice(i + 1, j) });
      re.lastIndex = j + 1;
    } else {
      const mm = /^[^\s$]+/.exec(text.slice(i, i + 200));
      if (mm && m[0].length > '\\boxed'.length - 1 && /\s$/.test(m[0])) boxes.push({ start: m.index, end: i + mm[0].length, content: mm[0] });
    }
  }
  return boxes;
}

/** Text allowed between boxes that together form one answer ("\\boxed{1} and \\boxed{2}"); "or" marks alternatives instead. */
const BOX_GAP = /^[\s$,;.]*(?:(?:and|,|\\text\{\s*(?:and|,)\s*\}|\\quad|\\qquad)[\s$,;.]*)?$/;

function lastBoxed(text: string): string | undefined {
  if (!text.includes('\\boxed') && !text.includes('\\fbox')) return undefined;
  const boxes = findBoxes(text);
  if (!boxes.length) return undefined;
  const parts = [boxes[boxes.length - 1]!.content];
  for (let k = boxes.length - 2; k >= 0; k--) {
    const gap = text.slice(boxes[k]!.end, boxes[k + 1]!.start);
    if (gap.length > 40 || !BOX_GAP.test(gap)) break;
    parts.unshift(boxes[k]!.content);
  }
  return parts.join(', ');
}

const ANSWER_PHRASE = /(?:final\s+answer|the\s+answer|answer)\s*(?:is|:|=|would\s+be|will\s+be)\s*:?\s*/gi;

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
    while (i > 0 && /[\d,.]/.test(text[i - 1]!)) i--;
    const m = /^-?[\d,.]+/.exec(text.slice(i));
    if (m) last = m[0];
  }
  return last;
}

/** Text that reads like a bare answer rather than prose. */
function looksLikeBareAnswer(s: string): boolean {
  if (s.length > 120 || s.includes('\n')) return false;
  const prose = s.replace(/\\[A-Za-z]+(\{[^{}]*\})?/g, ' ');
  return !/[A-Za-z]{3,}\s+[A-Za-z]{3,}\s+[A-Za-z]{3,}/.test(prose);
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
  const trimmed = cleanCandidate(body);
  if (role === 'reference') return trimmed ? { text: trimmed, method: 'whole' } : undefined;
  if (opts.whole !== false && trimmed && looksLikeBareAnswer(trimmed)) return { text: trimmed, method: 'whole' };
  const bold = lastBold(body);
  if (bold) return { text: bold, method: 'bold' };
  if (opts.last_number !== false) {
    const n = lastNumber(body);
    if (n !== undefined) return { text: n, method: 'last_number' };
  }
  return undefined;
}

function extractMarked(body: string): Extracted | undefined {
  const boxed = lastBoxed(body);
  if (boxed !== undefined) {
    const t = cleanCandidate(boxed);
    if (t) return { text: t, method: 'boxed' };
  }
  // the last of: "the answer is X", "Answer: X" / "A: X" lines, "#### X"
  let best: { at: number; text: string; method: ExtractMethod } | undefined;
  if (/answer/i.test(body)) {
    for (const m of body.matchAll(ANSWER_PHRASE)) {
      const t = cleanCandidate(sentenceAfter(body, m.index! + m[0].length), true);
      if (t && (!best || m.index! >= best.at)) best = { at: m.index!, text: t, method: 'answer_phrase' };
    }
  }
  if (body.includes('A:')) {
    for (const m of body.matchAll(/^[ \t]*A:[ \t]*(.*)$/gm)) {
      const t = cleanCandidate(afterLastEquals(m[1]!), true);
      if (t && (!best || m.index! >= best.at)) best = { at: m.index!, text: t, method: 'answer_line' };
    }
  }
  if (body.includes('####')) {
    for (const m of body.matchAll(/####[ \t]*(.*)$/gm)) {
      const t = cleanCandidate(afterLastEquals(m[1]!), true);
      if (t && (!best || m.index! >= best.at)) best = { at: m.index!, text: t, method: 'hash' };
    }
  }
  return best && { text: best.text, method: best.method };
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
