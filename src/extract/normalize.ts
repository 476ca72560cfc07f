// Compatibility forms an answer may be written in, folded to ASCII before anything reads the text:
// every Unicode decimal digit (fullwidth `１２`, Arabic-Indic `١٢`, Eastern Arabic-Indic `۱۲`,
// Devanagari, mathematical bold `𝟏𝟐`, …) becomes its ASCII digit, fullwidth letters and signs
// (`＋－＝＜＞（）［］｛｝／＊＾．％＄` and the like) their ASCII forms, the ideographic space a space,
// and the Arabic decimal/thousands separators and percent sign `٫ ٬ ٪` become `. , %`. The CJK
// prose marks that end a clause (`，；：！？` and `。`) stay as written, because in CJK text they are
// punctuation, not math (`答案是12！` is not 12 factorial); a fullwidth comma or colon between two
// digits (`１，０００`, `３：４`) is folded. Superscript digits (`m²`) and circled digits are not
// decimal digits and stay. Linear in the text; returns the same string when nothing applies.

const NON_ASCII = /[\u0080-\uffff]/;
/** Characters this pass rewrites (a quick test keeps the common all-ASCII text free). */
const CANDIDATE = /[\u3000\u066a-\u066c\uff01-\uff5e]|(?![0-9])\p{Nd}/u;
const REWRITE = /[\u3000\u066a-\u066c\uff01-\uff5e]|(?![0-9])\p{Nd}/gu;
/** Fullwidth clause punctuation kept as written (see above). */
const KEEP = new Set(['，', '；', '：', '！', '？']);
const DIGIT = /\p{Nd}/u;

/** The ASCII digit of a non-ASCII decimal digit: its place in its run of ten (Unicode keeps digits 0-9 contiguous). */
function digitValue(ch: string): string {
  const cp = ch.codePointAt(0)!;
  // the zero of this digit's block: walk back over the contiguous digits (runs of 10, some adjacent)
  let start = cp;
  while (start > 0 && cp - start < 60 && DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return String((cp - start) % 10);
}

function rewrite(ch: string): string {
  if (ch === '\u3000') return ' ';
  if (ch === '\u066b') return '.';
  if (ch === '\u066c') return ',';
  if (ch === '\u066a') return '%';
  const cp = ch.codePointAt(0)!;
  if (cp >= 0xff01 && cp <= 0xff5e) return KEEP.has(ch) ? ch : String.fromCharCode(cp - 0xfee0);
  return digitValue(ch);
}

/** The text with digits, fullwidth forms and separators folded to ASCII (see the file comment). */
export function normalizeForms(text: string): string {
  // all-ASCII text (most of it) is decided by one fast scan; the Unicode test only runs on the rest
  if (!NON_ASCII.test(text) || !CANDIDATE.test(text)) return text;
  return text.replace(REWRITE, rewrite).replace(/(?<=[0-9])[，：](?=[0-9])/g, (c) => (c === '，' ? ',' : ':'));
}
