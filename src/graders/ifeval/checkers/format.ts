// IFEval `detectable_format:*`: bullet lists, constrained answers, highlighted sections,
// numbered sections, JSON output and a <<title>>.
import { escapeRegExp, pyStrip, stripChars, lstripChars, rstripChars } from '../pytext.js';
import { countBulletLines, findTitles } from '../scan.js';
import { intArg, strArg, type InstructionType } from '../types.js';

const CONSTRAINED = ['My answer is yes.', 'My answer is no.', 'My answer is maybe.'];

function removePrefix(s: string, p: string): string {
  return s.startsWith(p) ? s.slice(p.length) : s;
}

export const formatInstructions: InstructionType[] = [
  {
    id: 'detectable_format:number_bullet_lists',
    args: ['num_bullets'],
    build(kw) {
      const n = intArg(kw, 'num_bullets');
      return (r) => countBulletLines(r, '*') + countBulletLines(r, '-') === n;
    },
  },
  {
    id: 'detectable_format:constrained_response',
    args: [],
    build() {
      return (r) => {
        const v = pyStrip(r);
        return CONSTRAINED.some((c) => v.includes(c));
      };
    },
  },
  {
    id: 'detectable_format:number_highlighted_sections',
    args: ['num_highlights'],
    build(kw) {
      const n = intArg(kw, 'num_highlights');
      return (r) => {
        let count = 0;
        for (const m of r.matchAll(/\*[^\n*]*\*/gu)) if (pyStrip(stripChars(m[0], '*'))) count++;
        for (const m of r.matchAll(/\*\*[^\n*]*\*\*/gu)) if (pyStrip(m[0].slice(2, -2))) count++;
        return count >= n;
      };
    },
  },
  {
    id: 'detectable_format:multiple_sections',
    args: ['section_spliter', 'num_sections'],
    build(kw) {
      const splitter = strArg(kw, 'section_spliter').trim();
      const n = intArg(kw, 'num_sections');
      const re = new RegExp(`\\s?${escapeRegExp(splitter)}\\s?\\p{Nd}+\\s?`, 'gu');
      return (r) => (r.match(re)?.length ?? 0) >= n;
    },
  },
  {
    id: 'detectable_format:json_format',
    args: [],
    build() {
      return (r) => {
        let v = pyStrip(r);
        for (const p of ['```json', '```Json', '```JSON', '```']) v = removePrefix(v, p);
        if (v.endsWith('```')) v = v.slice(0, -3);
        v = pyStrip(v);
        try {
          JSON.parse(v);
          return true;
        } catch {
          return false;
        }
      };
    },
  },
  {
    id: 'detectable_format:title',
    args: [],
    build() {
      return (r) => {
        for (const t of findTitles(r)) if (pyStrip(rstripChars(lstripChars(t, '<'), '>'))) return true;
        return false;
      };
    },
  },
];
