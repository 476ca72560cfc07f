// The judge-output corpus: every case parses exactly as expected (value, and the verdict's offsets
// point at the verdict text), and every unparsable case is reported with the expected reason.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { labelParser, parsePairwise, parseScore, parseYesNo } from '../../dist/graders/judges/parse/index.js';

interface Case {
  id: string;
  parser: 'score' | 'pairwise' | 'yesno' | 'label';
  options?: { range?: [number, number]; outOfRange?: 'reject' | 'clamp'; labels?: string[] };
  text: string;
  expect: { ok: true; value: unknown; text?: string } | { ok: false; error: string };
}

const cases: Case[] = readFileSync(fileURLToPath(new URL('./fixtures/verdicts.jsonl', import.meta.url)), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));

function run(c: Case) {
  switch (c.parser) {
    case 'score': {
      const v = parseScore(c.text, c.options as never);
      return v.ok ? { ...v, value: v.value.score } : v;
    }
    case 'pairwise':
      return parsePairwise(c.text);
    case 'yesno':
      return parseYesNo(c.text);
    case 'label':
      return labelParser(c.options!.labels!).parse(c.text);
  }
}

describe('judge output corpus', () => {
  it('has at least 200 cases covering every parser, valid and invalid', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
    for (const p of ['score', 'pairwise', 'yesno', 'label']) {
      expect(cases.some((c) => c.parser === p && c.expect.ok)).toBe(true);
      expect(cases.some((c) => c.parser === p && !c.expect.ok)).toBe(true);
    }
  });

  it('parses 100% of the corpus as expected', () => {
    const wrong: string[] = [];
    for (const c of cases) {
      const got = run(c);
      if (c.expect.ok) {
        if (!got.ok) {
          wrong.push(`${c.id}: expected ${JSON.stringify(c.expect.value)}, got error ${got.error} (${got.message})`);
          continue;
        }
        const same = typeof c.expect.value === 'number' ? Math.abs((got.value as number) - c.expect.value) < 1e-9 : got.value === c.expect.value;
        if (!same) wrong.push(`${c.id}: expected ${JSON.stringify(c.expect.value)}, got ${JSON.stringify(got.value)} from "${got.matched}"`);
        else if (c.expect.text !== undefined && c.text.slice(got.start, got.end) !== c.expect.text) {
          wrong.push(`${c.id}: verdict offsets point at "${c.text.slice(got.start, got.end)}", expected "${c.expect.text}"`);
        }
      } else if (got.ok) {
        wrong.push(`${c.id}: expected error ${c.expect.error}, got ${JSON.stringify(got.value)} from "${got.matched}"`);
      } else if (got.error !== c.expect.error) {
        wrong.push(`${c.id}: expected error ${c.expect.error}, got ${got.error} (${got.message})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
