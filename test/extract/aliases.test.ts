// Deprecated option names: each old name loads to exactly the config its new name gives (and grades
// the same), is reported as a deprecation note (`arbiter validate` prints it, exit 0), and given
// together with its new name and a different value is a config error naming both.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { grade, loadGrader, validateGrader, type ConfigIssue } from '../../dist/index.js';

const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const bfclRef = [{ f: { a: [1], b: [2] } }];

interface Case {
  name: string;
  old: Record<string, unknown>;
  now: Record<string, unknown>;
  /** Conflicting new setting added to `old`, naming these fields. */
  clash?: { add: Record<string, unknown>; names: [string, string] };
  /** Outputs graded with both (pure graders only). */
  outputs?: string[];
}

const math = { type: 'math', reference: '4' };
const tags = { type: 'format', check: 'tags', tags: ['think', 'answer'] };
const json = { type: 'format', check: 'json' };
const tool = { type: 'tool_call', reference: bfclRef };
const ifeval = { type: 'ifeval', instruction_ids: ['change_case:english_lowercase', 'punctuation:no_comma'], kwargs: [{}, {}] };
const code = { type: 'code', format: 'stdio', tests: [{ input: '', output: '1' }] };
const python = { type: 'python', source: 'def grade(sample, item):\n    return 1.0\n' };
const rubric = { type: 'rubric', model: 'm', criteria: ['is right'] };
const verify = { type: 'reference_verify', model: 'm', reference: '4' };

const mathOuts = ['<think>the answer is 5</think> the answer is 4', '<think>answer is 4</think> answer is 5', '<think>never closed 4'];
const cases: Case[] = [
  {
    name: 'math skip_think: true',
    old: { ...math, skip_think: true },
    now: { ...math, extract: { think: 'strip' } },
    clash: { add: { extract: { think: 'keep' } }, names: ['skip_think', 'extract.think'] },
    outputs: mathOuts,
  },
  {
    name: 'math skip_think: false',
    old: { ...math, skip_think: false },
    now: { ...math, extract: { think: 'keep' } },
    clash: { add: { extract: { think: 'strip' } }, names: ['skip_think', 'extract.think'] },
    outputs: mathOuts,
  },
  {
    name: 'math max_input_chars',
    old: { ...math, max_input_chars: 10 },
    now: { ...math, max_chars: 10 },
    clash: { add: { max_chars: 11 }, names: ['max_input_chars', 'max_chars'] },
    outputs: ['4', 'the answer is 4 indeed'],
  },
  {
    name: 'format extract: fenced',
    old: { ...json, extract: 'fenced' },
    now: { ...json, extract: { from: 'fenced' } },
    outputs: ['x\n```json\n{"a":1}\n```', '{"a":1}'],
  },
  {
    name: 'format extract: whole',
    old: { ...json, extract: 'whole' },
    now: { ...json, extract: { from: 'whole' } },
    outputs: ['x\n```json\n{"a":1}\n```', '{"a":1}'],
  },
  {
    name: 'format scoring: fraction',
    old: { ...tags, scoring: 'fraction' },
    now: { ...tags, partial_credit: true },
    clash: { add: { partial_credit: false }, names: ['scoring', 'partial_credit'] },
    outputs: ['<think>a</think>', '<think>a</think><answer>b</answer>'],
  },
  { name: 'format scoring: all', old: { ...tags, scoring: 'all' }, now: { ...tags, partial_credit: false }, outputs: ['<think>a</think>'] },
  {
    name: 'tool_call scoring: partial',
    old: { ...tool, scoring: 'partial' },
    now: { ...tool, partial_credit: true },
    clash: { add: { partial_credit: false }, names: ['scoring', 'partial_credit'] },
    outputs: ['[f(a=1, b=3)]', '[f(a=1, b=2)]'],
  },
  { name: 'tool_call scoring: exact', old: { ...tool, scoring: 'exact' }, now: { ...tool, partial_credit: false }, outputs: ['[f(a=1, b=3)]'] },
  {
    name: 'ifeval aggregate: mean',
    old: { ...ifeval, aggregate: 'mean' },
    now: { ...ifeval, partial_credit: true },
    clash: { add: { partial_credit: false }, names: ['aggregate', 'partial_credit'] },
    outputs: ['hello, world', 'Hello world'],
  },
  { name: 'ifeval aggregate: all', old: { ...ifeval, aggregate: 'all' }, now: { ...ifeval, partial_credit: false }, outputs: ['hello, world'] },
  { name: 'code extract: auto', old: { ...code, extract: 'auto' }, now: { ...code, extract: { from: 'fenced' } } },
  { name: 'code extract: none', old: { ...code, extract: 'none' }, now: { ...code, extract: { from: 'whole' } } },
  {
    name: 'code max_code_bytes',
    old: { ...code, max_code_bytes: 100 },
    now: { ...code, max_bytes: 100 },
    clash: { add: { max_bytes: 200 }, names: ['max_code_bytes', 'max_bytes'] },
  },
  {
    name: 'python max_input_bytes',
    old: { ...python, max_input_bytes: 100 },
    now: { ...python, max_bytes: 100 },
    clash: { add: { max_bytes: 200 }, names: ['max_input_bytes', 'max_bytes'] },
  },
  {
    name: 'rubric response',
    old: { ...rubric, response: '{{item.r}}' },
    now: { ...rubric, input: '{{item.r}}' },
    clash: { add: { input: '{{item.s}}' }, names: ['response', 'input'] },
  },
  {
    name: 'reference_verify response',
    old: { ...verify, response: '{{item.r}}' },
    now: { ...verify, input: '{{item.r}}' },
    clash: { add: { input: '{{item.s}}' }, names: ['response', 'input'] },
  },
];

describe('deprecated option names', () => {
  for (const c of cases) {
    it(`${c.name}: loads to the config of its new name, with a note`, async () => {
      const notes: ConfigIssue[] = [];
      const a = loadGrader(c.old, { notes });
      const nowNotes: ConfigIssue[] = [];
      const b = loadGrader(c.now, { notes: nowNotes });
      expect(a.config).toEqual(b.config);
      expect(notes).toHaveLength(1);
      expect(notes[0]!.message).toMatch(/deprecated/);
      expect(nowNotes).toEqual([]);
      for (const output_text of c.outputs ?? []) {
        const [ra, rb] = [await grade(a, { item: {}, output_text }), await grade(b, { item: {}, output_text })];
        expect({ score: ra.score, valid: ra.valid, reason: ra.reason }).toEqual({ score: rb.score, valid: rb.valid, reason: rb.reason });
      }
    });
    if (c.clash) {
      const { add, names } = c.clash;
      it(`${c.name}: given with a conflicting new name is a config error naming both`, () => {
        const issues = validateGrader({ ...c.old, ...add });
        expect(issues).toHaveLength(1);
        expect(issues[0]!.message).toContain(`"${names[0]}"`);
        expect(issues[0]!.message).toContain(`"${names[1]}"`);
      });
    }
  }

  it('the same value under both names is accepted', () => {
    expect(validateGrader({ ...math, skip_think: false, extract: { think: 'keep' } })).toEqual([]);
  });

  it('an old value the old name never took is refused, naming the field', () => {
    const issues = validateGrader({ ...code, extract: 'fenced' });
    expect(issues.map((i) => i.path)).toEqual(['extract']);
    expect(issues[0]!.message).toMatch(/"auto", "none"/);
  });

  it('aliases apply in nested graders, and notes carry the nested path', () => {
    const notes: ConfigIssue[] = [];
    loadGrader({ type: 'multi', graders: { acc: { ...math, skip_think: false } } }, { notes });
    expect(notes.map((n) => n.path)).toEqual(['graders.acc.skip_think']);
  });

  it('arbiter validate prints the deprecation note and exits 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-alias-'));
    const file = join(dir, 'g.json');
    writeFileSync(file, JSON.stringify({ ...tool, scoring: 'partial' }));
    const r = spawnSync(process.execPath, [cli, 'validate', file], { encoding: 'utf8' });
    expect(r.stdout).toContain(': ok');
    const stderr = r.stderr;
    expect(r.status).toBe(0);
    expect(stderr).toMatch(/note: scoring: "scoring" is deprecated/);
  });
});

describe('new extraction settings', () => {
  it('format json with extract.think: strip reads the JSON after the reasoning; an unterminated block is no JSON', async () => {
    const strip = loadGrader({ ...json, extract: { think: 'strip' } });
    const keep = loadGrader(json);
    const text = '<think>maybe {"a": 1}</think>{"ok": true}';
    expect((await grade(strip, { item: {}, output_text: text })).score).toBe(1);
    expect((await grade(keep, { item: {}, output_text: text })).score).toBe(0);
    const r = await grade(strip, { item: {}, output_text: '<think>{"ok": true}' });
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/never closes/);
  });

  it('tool_call with extract.think: strip ignores a call drafted in the reasoning', async () => {
    const strip = loadGrader({ ...tool, extract: { think: 'strip' } });
    expect((await grade(strip, { item: {}, output_text: '<think>[f(a=1, b=3)]</think>[f(a=1, b=2)]' })).score).toBe(1);
    expect((await grade(loadGrader(tool), { item: {}, output_text: '<think>[f(a=1, b=3)]</think>[f(a=1, b=2)]' })).score).toBe(0);
  });

  it('refuses a source a grader does not support', () => {
    expect(validateGrader({ ...math, extract: { from: 'fenced' } }).map((i) => i.path)).toEqual(['extract.from']);
  });
});
