// The Porter stemmer as NLTK's default `PorterStemmer()` (mode NLTK_EXTENSIONS) applies it, which
// is the stemmer behind NLTK's meteor_score and rouge-score's `use_stemmer`: Porter (1980) plus
// NLTK's irregular-forms pool, 4-letter "ies"/"ied" words, the stricter y -> i rule, the extra
// step-2 rules (alli, fulli, logi) and 2-letter stems counting as cvc. Written from NLTK's
// description of those rules; checked against NLTK 3.8's output (test/similarity/porter.test.ts).

const POOL: Record<string, string> = {
  sky: 'sky',
  skies: 'sky',
  dying: 'die',
  lying: 'lie',
  tying: 'tie',
  news: 'news',
  innings: 'inning',
  inning: 'inning',
  outings: 'outing',
  outing: 'outing',
  cannings: 'canning',
  canning: 'canning',
  howe: 'howe',
  proceed: 'proceed',
  exceed: 'exceed',
  succeed: 'succeed',
};

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u']);

function isConsonant(w: string, i: number): boolean {
  const c = w[i]!;
  if (VOWELS.has(c)) return false;
  if (c === 'y') return i === 0 ? true : !isConsonant(w, i - 1);
  return true;
}

/** m in [C](VC)^m[V]: the number of vowel-consonant transitions. */
function measure(stem: string): number {
  let m = 0;
  for (let i = 1; i < stem.length; i++) if (!isConsonant(stem, i - 1) && isConsonant(stem, i)) m++;
  return m;
}

const positive = (s: string) => measure(s) > 0;
const gt1 = (s: string) => measure(s) > 1;

function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  return w.length >= 2 && w[w.length - 1] === w[w.length - 2] && isConsonant(w, w.length - 1);
}

function endsCvc(w: string): boolean {
  const n = w.length;
  if (n >= 3 && isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && !'wxy'.includes(w[n - 1]!)) return true;
  return n === 2 && !isConsonant(w, 0) && isConsonant(w, 1);
}

type Rule = [suffix: string, replacement: string, condition?: (stem: string) => boolean];

/** The first rule whose suffix matches decides: replaced if its condition holds, else unchanged. */
function applyRules(word: string, rules: Rule[]): string {
  for (const [suffix, rep, cond] of rules) {
    if (suffix === '*d') {
      if (endsDoubleConsonant(word)) {
        const stem = word.slice(0, -2);
        return !cond || cond(stem) ? stem + rep : word;
      }
      continue;
    }
    if (word.endsWith(suffix)) {
      const stem = suffix ? word.slice(0, -suffix.length) : word;
      return !cond || cond(stem) ? stem + rep : word;
    }
  }
  return word;
}

function step1a(w: string): string {
  if (w.endsWith('ies') && w.length === 4) return w.slice(0, -3) + 'ie';
  return applyRules(w, [
    ['sses', 'ss'],
    ['ies', 'i'],
    ['ss', 'ss'],
    ['s', ''],
  ]);
}

function step1b(w: string): string {
  if (w.endsWith('ied')) return w.slice(0, -3) + (w.length === 4 ? 'ie' : 'i');
  if (w.endsWith('eed')) {
    const stem = w.slice(0, -3);
    return measure(stem) > 0 ? stem + 'ee' : w;
  }
  let inter: string | undefined;
  for (const suf of ['ed', 'ing']) {
    if (w.endsWith(suf) && containsVowel(w.slice(0, -suf.length))) {
      inter = w.slice(0, -suf.length);
      break;
    }
  }
  if (inter === undefined) return w;
  const last = inter[inter.length - 1]!;
  return applyRules(inter, [
    ['at', 'ate'],
    ['bl', 'ble'],
    ['iz', 'ize'],
    ['*d', last, () => !'lsz'.includes(last)],
    ['', 'e', (s) => measure(s) === 1 && endsCvc(s)],
  ]);
}

function step1c(w: string): string {
  return applyRules(w, [['y', 'i', (s) => s.length > 1 && isConsonant(s, s.length - 1)]]);
}

function step2(w: string): string {
  if (w.endsWith('alli') && positive(w.slice(0, -4))) return step2(w.slice(0, -4) + 'al');
  return applyRules(w, [
    ['ational', 'ate', positive],
    ['tional', 'tion', positive],
    ['enci', 'ence', positive],
    ['anci', 'ance', positive],
    ['izer', 'ize', positive],
    ['bli', 'ble', positive],
    ['alli', 'al', positive],
    ['entli', 'ent', positive],
    ['eli', 'e', positive],
    ['ousli', 'ous', positive],
    ['ization', 'ize', positive],
    ['ation', 'ate', positive],
    ['ator', 'ate', positive],
    ['alism', 'al', positive],
    ['iveness', 'ive', positive],
    ['fulness', 'ful', positive],
    ['ousness', 'ous', positive],
    ['aliti', 'al', positive],
    ['iviti', 'ive', positive],
    ['biliti', 'ble', positive],
    ['fulli', 'ful', positive],
    ['logi', 'log', () => positive(w.slice(0, -3))],
  ]);
}

function step3(w: string): string {
  return applyRules(w, [
    ['icate', 'ic', positive],
    ['ative', '', positive],
    ['alize', 'al', positive],
    ['iciti', 'ic', positive],
    ['ical', 'ic', positive],
    ['ful', '', positive],
    ['ness', '', positive],
  ]);
}

function step4(w: string): string {
  return applyRules(w, [
    ['al', '', gt1],
    ['ance', '', gt1],
    ['ence', '', gt1],
    ['er', '', gt1],
    ['ic', '', gt1],
    ['able', '', gt1],
    ['ible', '', gt1],
    ['ant', '', gt1],
    ['ement', '', gt1],
    ['ment', '', gt1],
    ['ent', '', gt1],
    ['ion', '', (s) => measure(s) > 1 && (s.endsWith('s') || s.endsWith('t'))],
    ['ou', '', gt1],
    ['ism', '', gt1],
    ['ate', '', gt1],
    ['iti', '', gt1],
    ['ous', '', gt1],
    ['ive', '', gt1],
    ['ize', '', gt1],
  ]);
}

function step5a(w: string): string {
  if (!w.endsWith('e')) return w;
  const stem = w.slice(0, -1);
  const m = measure(stem);
  return m > 1 || (m === 1 && !endsCvc(stem)) ? stem : w;
}

function step5b(w: string): string {
  return applyRules(w, [['ll', 'l', () => measure(w.slice(0, -1)) > 1]]);
}

/** NLTK `PorterStemmer().stem(word)` (lower-cases first). */
export function porterStem(word: string): string {
  const w = word.toLowerCase();
  if (Object.hasOwn(POOL, word)) return POOL[w]!;
  if (word.length <= 2) return w;
  return step5b(step5a(step4(step3(step2(step1c(step1b(step1a(w))))))));
}
