// Offline language identification for the IFEval language and case checkers: Shuyo's n-gram naive
// Bayes detector (the algorithm of the Python `langdetect` the reference uses), over the 55
// language profiles shipped in the npm `langdetect` package, giving the same verdicts as that
// package's `detectOne` — in time linear in the text. The package itself cannot be called on
// untrusted text: it strips URLs and e-mail addresses from the WHOLE text with backtracking
// regexes whose e-mail pattern is quadratic in the length of a run without spaces (190,000
// characters: 53 s; CJK text, which has no spaces: minutes), and only then keeps the first
// 10,000 characters. Here the two patterns run on the linear-time RE2 engine over a prefix of the
// text just long enough for those 10,000 characters (exact unless one URL or address longer than
// 2,000 characters starts inside them), and each Unicode character's class is computed directly
// rather than by testing ~270 block regexes per character. The draws of the detector's random
// sampling come from a fixed-seed generator, so the same text always gets the same answer.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { RE2JS } from 're2js';
import { seededRandom } from '../../core/random.js';
import { startupResource } from '../../core/startup.js';

/** Returns an ISO 639-1 code (`zh-cn`/`zh-tw` for Chinese), or null when nothing can be detected. */
export type DetectLanguage = (text: string) => string | null;

// The detector's constants (as in langdetect).
const N_GRAM = 3;
const TRIALS = 7;
const PROB_THRESHOLD = 0.1;
const ALPHA_WIDTH = 0.05;
const ITERATION_LIMIT = 1000;
const BASE_FREQ = 10000;
const CONV_THRESHOLD = 0.99999;
/** Characters of the cleaned text the detector looks at. */
export const MAX_TEXT_LENGTH = 10000;
/** Extra cleaned characters required past MAX_TEXT_LENGTH before a prefix is trusted. */
const PREFIX_MARGIN = 2000;

const SEED = 0x2f6b_1d3a;

// The npm package's URL and e-mail patterns, rewritten for RE2 with the same matches: its `i` flag
// only ever affects ASCII letters here (so [a-z] becomes [a-zA-Z]), `\s` and `.` are spelled out
// with JavaScript's sets.
const WS = String.raw`\t\n\x{0b}\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`;
const URL_CHAR = String.raw`[-a-zA-Z0-9@:%_+.~#?&/=]`;
const URL_RE = RE2JS.compile(String.raw`${URL_CHAR}{2,256}\.[a-zA-Z]{2,4}\b(?:/${URL_CHAR}*)?`);
const LOCAL = String.raw`[^<>()\[\]\\.,;:${WS}@"]`;
const MAIL_RE = RE2JS.compile(
  String.raw`(?:${LOCAL}+(?:\.${LOCAL}+)*|"[^\n\r\x{2028}\x{2029}]+")@(?:\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\]|(?:[a-zA-Z0-9-]+\.)+[a-zA-Z]{2,})`,
);

/** URLs, then e-mail addresses, each replaced by one space. */
function stripAddresses(text: string): string {
  let t = text;
  if (/\.[a-zA-Z]{2}/.test(t)) t = URL_RE.matcher(t).replaceAll(' ');
  if (t.includes('@')) t = MAIL_RE.matcher(t).replaceAll(' ');
  return t;
}

/**
 * The first MAX_TEXT_LENGTH characters of the text with addresses stripped, computed from a prefix
 * that grows (doubling) until its stripped form runs PREFIX_MARGIN characters past them.
 */
export function detectorText(text: string): string {
  let n = Math.min(text.length, MAX_TEXT_LENGTH + 2 * PREFIX_MARGIN);
  for (;;) {
    const stripped = stripAddresses(text.slice(0, n));
    if (n >= text.length || stripped.length >= MAX_TEXT_LENGTH + PREFIX_MARGIN) return stripped.slice(0, MAX_TEXT_LENGTH);
    n = Math.min(text.length, n * 2);
  }
}

/** Drops a space that follows a space. */
function reduceSpace(text: string): string {
  let out = '';
  let pre = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== ' ' || pre !== ' ') out += c;
    pre = c;
  }
  return out;
}

/**
 * The package's per-character normalisation, as it behaves: it looks blocks up by names such as
 * "Basic Latin" in a table that spells them "Basic_Latin", so only the one-word blocks it names
 * take effect — Arabic yeh, and the Hiragana, Katakana and Bopomofo blocks (one UTF-16 unit each).
 */
function normalize(ch: string): string {
  const c = ch.charCodeAt(0);
  if (c === 0x06cc) return '\u064a';
  if (c >= 0x3040 && c <= 0x309f) return '\u3042';
  if (c >= 0x30a0 && c <= 0x30ff) return '\u30a2';
  if (c >= 0x3100 && c <= 0x312f) return '\u3105';
  return ch;
}

/** Keeps only the non-Latin characters when they outnumber the Latin letters two to one. */
function cleanText(text: string): string {
  let latin = 0;
  let nonLatin = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c <= 'z' && c >= 'A') latin++;
    else if (c >= '\u0300') nonLatin += c;
  }
  return latin * 2 < nonLatin.length ? nonLatin : text;
}

interface Profiles {
  langs: string[];
  /** n-gram → probability per language (0 where absent). */
  probs: Map<string, Float64Array>;
}

let profiles: Profiles | undefined;

function loadProfiles(): Profiles {
  if (profiles) return profiles;
  const dir = join(dirname(createRequire(import.meta.url).resolve('langdetect/package.json')), 'profiles');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  const langs: string[] = [];
  const probs = new Map<string, Float64Array>();
  files.forEach((file, i) => {
    const p = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { freq: Record<string, number>; n_words: number[] };
    langs.push(file.slice(0, -'.json'.length));
    for (const [word, count] of Object.entries(p.freq)) {
      let row = probs.get(word);
      if (!row) probs.set(word, (row = new Float64Array(files.length)));
      if (word.length >= 1 && word.length <= 3) row[i] = count / p.n_words[word.length - 1]!;
    }
  });
  return (profiles = { langs, probs });
}

/** The 1- to 3-grams of the text that have a profile entry, in order (capitalised words skipped). */
function extractNGrams(text: string, probs: Map<string, unknown>): string[] {
  let grams = ' ';
  let capital = false;
  const list: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = normalize(text[i]!);
    const last = grams[grams.length - 1]!;
    let skip = false;
    if (last === ' ') {
      grams = ' ';
      capital = false;
      if (ch === ' ') skip = true;
    } else if (grams.length >= N_GRAM) grams = grams.substring(1);
    if (!skip) {
      grams += ch;
      if (ch !== ch.toLowerCase()) {
        if (last !== last.toLowerCase()) capital = true;
      } else capital = false;
    }
    if (capital) continue;
    const len = grams.length;
    for (let n = 1; n <= N_GRAM && n <= len; n++) {
      const w = n === 1 && grams[len - 1] !== ' ' ? grams[len - 1]! : grams.substring(len - n, len);
      if (probs.has(w)) list.push(w);
    }
  }
  return list;
}

function detect(text: string): string | null {
  const { langs, probs } = loadProfiles();
  const ngrams = extractNGrams(cleanText(reduceSpace(detectorText(text))), probs);
  if (ngrams.length === 0) return null;
  const random = seededRandom(SEED);
  const L = langs.length;
  const langprob = new Float64Array(L);
  const prob = new Array<number>(L);
  for (let trial = 0; trial < TRIALS; trial++) {
    const weight = (ALPHA_WIDTH + random() * ALPHA_WIDTH) / BASE_FREQ;
    prob.fill(1 / L);
    for (let j = 0; ; j++) {
      // the package draws with parseInt(Math.random() * n), which parses the number's string form
      const row = probs.get(ngrams[parseInt(String(random() * ngrams.length))!]!)!;
      for (let k = 0; k < L; k++) prob[k]! *= weight + row[k]!;
      if (j % 5 === 0) {
        let maxp = 0;
        let sum = 0;
        for (let k = 0; k < L; k++) sum += prob[k]!;
        for (let k = 0; k < L; k++) {
          const p = prob[k]! / sum;
          if (maxp < p) maxp = p;
          prob[k] = p;
        }
        if (maxp > CONV_THRESHOLD || j >= ITERATION_LIMIT) break;
      }
    }
    for (let k = 0; k < L; k++) langprob[k]! += (prob[k] || 0) / TRIALS;
  }
  // the most probable language above the threshold (the first one on a tie)
  let best = -1;
  for (let k = 0; k < L; k++) if (langprob[k]! > PROB_THRESHOLD && (best < 0 || langprob[k]! > langprob[best]!)) best = k;
  return best < 0 ? null : langs[best]!;
}

/** The detector, loaded on first use (its profiles: a fraction of a second, once per process). */
export function getLanguageDetector(): DetectLanguage {
  loadProfiles();
  return detect;
}

/** The detector as a start-up resource (core/startup.ts): the ifeval grader warms it before its first grade. */
export const loadLanguageDetector: () => Promise<DetectLanguage> = startupResource('ifeval language profiles (langdetect)', getLanguageDetector);
