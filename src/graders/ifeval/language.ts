// Offline language identification for the IFEval language and case checkers, via the npm
// `langdetect` package: the same algorithm (Shuyo's n-gram naive Bayes) and the same 55 language
// profiles as the Python `langdetect` the reference uses. Its sampling draws on Math.random, so
// each call runs with a fixed-seed generator swapped in: the same text always gets the same answer.
import { createRequire } from 'node:module';

/** Returns an ISO 639-1 code (`zh-cn`/`zh-tw` for Chinese), or null when nothing can be detected. */
export type DetectLanguage = (text: string) => string | null;

interface LangdetectModule {
  detectOne(text: string): string | null;
}

const SEED = 0x2f6b_1d3a;

/** mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let detector: DetectLanguage | undefined;

/** The detector, loaded on first use (about half a second, once per process). */
export function getLanguageDetector(): DetectLanguage {
  if (detector) return detector;
  const lib = createRequire(import.meta.url)('langdetect') as LangdetectModule;
  detector = (text: string) => {
    const saved = Math.random;
    Math.random = seededRandom(SEED);
    try {
      return lib.detectOne(text) ?? null;
    } catch {
      // the npm port throws (TypeError) on text without features, e.g. only brackets, where Python's
      // langdetect raises LangDetectException — which the IFEval reference counts as "followed"
      return null;
    } finally {
      Math.random = saved;
    }
  };
  return detector;
}

/** Async form kept for callers that prefer to await loading. */
export async function loadLanguageDetector(): Promise<DetectLanguage> {
  return getLanguageDetector();
}
