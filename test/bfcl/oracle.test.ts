// Replays of BFCL's own answers, recorded by running BFCL's code (gorilla commit 6ea5797, Python
// 3.11, mpmath 1.3.0, PYTHONHASHSEED=0) on inputs arbiter's test generator made:
//  - oracle-mutations.jsonl: 324 mutated ground truths of base/miss_func/miss_param (a changed
//    argument, an int/float flip, a dropped/duplicated/swapped/moved call, an emptied turn, extra
//    calls, random calls), each with multi_turn_checker's verdict and error_type;
//  - oracle-api-calls.json: 340 calls on all ten simulated classes (edge cases: missing files,
//    insufficient funds, seeded ids and timestamps, int/float results, mpmath and Decimal reprs,
//    BM25 scores, Python's TypeErrors), each with execute_multi_turn_func_call's result text.
// arbiter must give the same verdict, error_type and result text for every one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { grade } from '../../dist/index.js';
import { BfclEnv, readConfigText, Side } from '../../dist/envs/bfcl/index.js';
import { pyDeepCopy } from '../../dist/envs/bfcl/py/values.js';
import { CATEGORIES, type Entry, grader, loadCategory } from './helpers.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describe("BFCL's verdicts on mutated ground truths", () => {
  const entries = new Map<string, Entry>(CATEGORIES.flatMap((c) => loadCategory(c).map((e) => [e.id, e] as [string, Entry])));
  const cases = fixture('oracle-mutations.jsonl')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; kind: string; model_name: string; turns: string[][]; bfcl: { valid: boolean; error_type?: string } });

  it('covers every mutation kind and error type', () => {
    const kinds = new Set(cases.map((c) => c.kind));
    expect([...kinds].sort()).toEqual(['arg', 'drop', 'dup', 'emptyturn', 'extra', 'movecall', 'random', 'swap', 'typeflip']);
    const types = new Set(cases.map((c) => c.bfcl.error_type ?? 'valid'));
    expect([...types].sort()).toEqual([
      'multi_turn:empty_turn_model_response',
      'multi_turn:execution_response_mismatch',
      'multi_turn:instance_state_mismatch',
      'valid',
    ]);
  });

  it('same score and error_type as BFCL for all 324', async () => {
    const mismatches: string[] = [];
    for (const c of cases) {
      const g = grader({ entry_id: '{{item.id}}', model_name: c.model_name });
      const r = await grade(g, { item: entries.get(c.id)!, sample: { output_turns: c.turns } });
      const mine = r.valid ? (r.score === 1 ? 'valid' : r.metadata.error_type) : `invalid: ${r.error?.message}`;
      const want = c.bfcl.valid ? 'valid' : c.bfcl.error_type;
      if (mine !== want) mismatches.push(`${c.id} ${c.kind}: arbiter ${mine}, BFCL ${want}`);
    }
    expect(mismatches).toEqual([]);
  });
});

describe("BFCL's result text for single calls", () => {
  const seqs = JSON.parse(fixture('oracle-api-calls.json')) as {
    name: string;
    classes: string[];
    initial_config: string;
    calls: string[];
    results: string[];
  }[];

  it('covers all ten classes', () => {
    expect(new Set(seqs.flatMap((s) => s.classes)).size).toBe(10);
    expect(seqs.reduce((n, s) => n + s.calls.length, 0)).toBe(340);
  });

  for (const s of seqs) {
    it(`${s.name}: ${s.calls.length} calls, result text identical`, () => {
      const read = readConfigText(s.initial_config);
      const side = new Side({
        env: new BfclEnv(),
        involvedClasses: s.classes,
        scenario: (c: string) => pyDeepCopy(read.scenarios.get(c) ?? null),
        longContext: false,
        modelName: 'unit',
        entryId: s.name,
      });
      const got = s.calls.map((c) => side.execute([c])[0]);
      const diffs = s.calls.flatMap((c, i) => (got[i] === s.results[i] ? [] : [`${c}\n  arbiter: ${got[i]}\n  BFCL:    ${s.results[i]}`]));
      expect(diffs).toEqual([]);
    });
  }
});
