// Final-answer markers in free text: "the answer is", "Final Answer:", "answers are", and their
// equivalents in other languages ("Réponse :", "Respuesta:", "答案："), found from the end backwards
// with a bounded number of tries. Returns where the marker is and where its value starts; what the
// value means is the caller's business (math reads it as a math answer).

/** How many occurrences of one marker word are examined, from the end backwards. */
export const MAX_MARKER_CANDIDATES = 8;

/**
 * Answer markers in other languages; single CJK characters need an explicit separator after them.
 * The conclusive connectives "donc" (fr), "所以", "因此" (zh: "so", "therefore") count as markers
 * only when a value follows at once ("donc 7 pour les 2 cas", "所以 7"): like every marker, the
 * rightmost one wins, so "donc la réponse est 7" is read at "réponse".
 */
const INTL_MARKERS = [
  'donc',
  '所以',
  '因此',
  'réponse',
  'reponse',
  'respuesta',
  'antwort',
  'risposta',
  'resposta',
  'odpowiedź',
  'ответ',
  'cevap',
  'jawaban',
  'đáp án',
  'câu trả lời',
  'الإجابة',
  'उत्तर',
  '答案',
  '解答',
  '答',
  '정답',
  '답',
];
const INTL_TAIL = 4000;
const INTL_TEST = /donc|所以|因此|r[ée]ponse|respuesta|antwort|risposta|resposta|odpowied|ответ|cevap|jawaban|đáp án|câu trả lời|الإجابة|उत्तर|答|답/i;
/** After "answer": a separator ("is", ":", "=", "would be", "to part (b) is"), or a math delimiter right away. */
const EN_SEP =
  /(?:s\s+(?:are|were)|\s*(?:\*\*)?\s*(?:is|was|would\s+be|will\s+be|should\s+be|=|:|：)|(?:\s+(?:to|for|of|in|on|the|this|that|these|our|my|question|problem|exercise|part|\(?[a-z0-9]\)))+\s*,?\s*(?:is|are))\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*|\s*(?:\*\*)?\s*(?=\$|\\\(|\\\[)/iy;
const INTL_SEP =
  /\s*(?:\*\*)?\s*(?:finale?|final)?\s*(?:\*\*)?\s*(?:est|es|ist|lautet|è|é|é:|это|是|为|為|は|은|는|이|가|=|:|：)\s*(?:\*\*)?\s*:?\s*|\s*(?=\$|\\\(|\d)/iy;

/** Markers that are connectives, not the word "answer": they count only in the last sentence of the text, and their clause is read for the value it states. */
const CONNECTIVES = new Set(['donc', '所以', '因此']);
const CONNECTIVE_SEP = /\s*[,，:：]?\s*/y;
/** A sentence end: a full stop before a space (not a decimal point), a CJK full stop, ! or ?, a line break. */
const SENTENCE_END = /\.(?=\s|$)|[。！？!?]|\n/g;

/** Whether nothing but punctuation and spaces (at most 200 characters) follows the sentence that holds position `from`. */
function inLastSentence(body: string, from: number): boolean {
  SENTENCE_END.lastIndex = from;
  const m = SENTENCE_END.exec(body);
  if (!m) return true;
  const rest = body.slice(m.index + 1);
  return rest.length <= 200 && /^[\s.。！？!?)"”]*$/.test(rest);
}

export interface Phrase {
  /** Index of the marker word. */
  at: number;
  /** Index where the answer after the marker (and its separator) starts. */
  from: number;
  /** A "final answer" marker (it overrides an earlier \\boxed{}). */
  strong: boolean;
}

/**
 * The rightmost answer phrase ("the answer is", "Final Answer:", "Réponse :", "答案：") and where its value starts.
 * `lower` is `body.toLowerCase()` (same length); `intl` also looks for the markers in other languages.
 */
export function findAnswerPhrase(body: string, lower: string, intl: boolean): Phrase | undefined {
  let best: Phrase | undefined;
  const words = intl ? ['answer', ...INTL_MARKERS] : ['answer'];
  for (const w of words) {
    for (let from = lower.length, n = 0; n < MAX_MARKER_CANDIDATES && from >= 0; n++) {
      const p = lower.lastIndexOf(w, from);
      if (p < 0 || (best && p < best.at)) break;
      from = p - 1;
      const ascii = /^[a-z]/.test(w);
      if (ascii && p > 0 && /\p{L}/u.test(lower[p - 1]!)) continue;
      const conn = CONNECTIVES.has(w);
      if (conn && !inLastSentence(body, p + w.length)) continue;
      const sep = w === 'answer' ? EN_SEP : conn ? CONNECTIVE_SEP : INTL_SEP;
      sep.lastIndex = p + w.length;
      const m = sep.exec(body);
      if (!m || (w.length === 1 && !/[:：是为為=]/.test(m[0]) && !/^\s*\d/.test(body.slice(p + w.length, p + w.length + 4)))) continue;
      if (ascii && m[0] === '' && /\p{L}/u.test(lower[p + w.length] ?? '')) continue;
      const before = lower.slice(Math.max(0, p - 8), p);
      const strong = /final\s*$|最[终終]$/.test(before) || /^\s*finale?\b/.test(lower.slice(p + w.length, p + w.length + 8));
      best = { at: p, from: p + w.length + m[0].length, strong };
      break;
    }
  }
  return best;
}

/** Whether the tail of a text holds an answer marker in another language (cheap pre-check for `intl`). */
export function hasIntlMarker(text: string): boolean {
  return INTL_TEST.test(text.length > INTL_TAIL ? text.slice(-INTL_TAIL) : text);
}
