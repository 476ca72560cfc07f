// The language detector (language.ts): same verdicts as npm langdetect's detectOne (seeded the same
// way) on the IFEval responses, addresses stripped as the package does, and bounded work on
// hostile text (the detector reads the first 10,000 characters of the stripped text).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataPath } from '../helpers/data.js';
import { getLanguageDetector } from '../../dist/graders/ifeval/language.js';
import { detectorText } from '../../dist/graders/ifeval/language.js';
import { seededRandom } from '../../dist/core/random.js';

const lib = createRequire(import.meta.url)('langdetect') as { detectOne(t: string): string | null };
const seeded = seededRandom;
/** The package's verdict with the same fixed-seed draws (it reads Math.random). */
function reference(text: string): string | null {
  const saved = Math.random;
  Math.random = seeded(0x2f6b_1d3a);
  try {
    return lib.detectOne(text) ?? null;
  } catch {
    return null;
  } finally {
    Math.random = saved;
  }
}

const detect = getLanguageDetector();
const responses: string[] = readFileSync(dataPath('ifeval/input_response_data_gpt4_20231107_145030.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l).response as string);

describe('language detection', () => {
  it('gives the npm langdetect verdict on every IFEval response', () => {
    const texts = responses.filter((r) => r.trim());
    const diffs = texts.filter((t) => detect(t) !== reference(t));
    expect(texts.length).toBeGreaterThan(500);
    expect(diffs).toEqual([]);
    expect(new Set(texts.map(detect)).size).toBeGreaterThan(10); // many languages, not one answer
  });

  it('strips URLs and e-mail addresses as the package does', () => {
    const samples = [
      'Write to john.doe@example.com or "a b"@host.org, or see https://www.example.com/path?q=1 today.',
      'Das ist ein deutscher Satz mit einer Adresse max@beispiel.de und www.beispiel.de/seite drin.',
      'x@[10.0.0.1] und dann weiter mit deutschem Text, der lang genug ist, um erkannt zu werden.',
    ];
    for (const s of samples) expect(detect(s)).toBe(reference(s));
    expect(detectorText('mail a.b@c.org now')).toBe('mail   now');
    expect(detectorText('see http://x.org/p?q ok')).toBe('see   ok');
  });

  it('reads the first 10,000 characters after stripping, so a long response costs no more than its start', () => {
    const cjk = Array.from({ length: 190_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join('');
    expect(detectorText(cjk)).toBe(cjk.slice(0, 10_000));
    expect(detect(cjk)).toBe(detect(cjk.slice(0, 14_000)));
    // addresses removed from the start pull later text into the window, as in the package
    const mails = 'someone@example.com '.repeat(1000) + 'das ist deutsch '.repeat(2000);
    expect(detectorText(mails).length).toBe(10_000);
    expect(detect(mails)).toBe(reference(mails.slice(0, 60_000)));
  });
});
