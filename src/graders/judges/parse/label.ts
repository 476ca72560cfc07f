// Label verdicts (label_model): the answer must be one of the configured labels, matched
// case-insensitively as a whole word; a structured answer naming an unknown label is an error.
import { compileChoice, parseChoice, type CompiledChoice } from './choice.js';
import { escapeRe, type ParseContext, type Verdict } from './verdict.js';

export interface LabelParser {
  labels: readonly string[];
  parse(raw: string, ctx?: ParseContext): Verdict<string>;
}

const cache = new Map<string, CompiledChoice<string>>();

export function labelParser(labels: readonly string[]): LabelParser {
  if (labels.length === 0) throw new Error('labelParser needs at least one label');
  const key = JSON.stringify(labels);
  let compiled = cache.get(key);
  if (!compiled) {
    const byLower = new Map(labels.map((l) => [l.trim().toLowerCase().replace(/\s+/g, ' '), l] as const));
    const alts = [...labels]
      .sort((a, b) => b.length - a.length)
      .map((l) => {
        const esc = escapeRe(l.trim()).replace(/[A-Za-z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
        return esc.replace(/\s+/g, String.raw`\s+`);
      });
    const value = String.raw`(?<![A-Za-z0-9_-])(?:${alts.join('|')})`;
    compiled = compileChoice<string>({
      what: `label (one of ${labels.map((l) => `"${l}"`).join(', ')})`,
      value,
      canon: (token) =>
        byLower.get(
          token
            .trim()
            .replace(/^[("'[*\s]+|[)"'\].!*\s]+$/g, '')
            .toLowerCase()
            .replace(/\s+/g, ' '),
        ),
      keys: [
        'final label',
        'label',
        'classification',
        'category',
        'class',
        'final verdict',
        'verdict',
        'result',
        'final answer',
        'answer',
        'decision',
        'judgement',
        'judgment',
        'rating',
        'grade',
      ],
      jsonKeys: ['result', 'label', 'verdict', 'classification', 'category', 'class', 'answer', 'decision', 'judgement', 'judgment', 'rating', 'grade'],
      tags: ['label', 'result', 'verdict', 'answer', 'classification', 'category', 'decision'],
      strictUnknown: true,
    });
    if (cache.size > 256) cache.clear();
    cache.set(key, compiled);
  }
  const c = compiled;
  return { labels, parse: (raw, ctx) => parseChoice(raw, c, ctx) };
}
