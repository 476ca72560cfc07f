// BFCL proof: every accepted answer scores 1 on simple_python, multiple, parallel and
// parallel_multiple; mutated calls score below 1 with the right mismatch; irrelevance items.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';
import { dataPath } from '../helpers/data.js';

const dir = `${dataPath('bfcl')}/`;
const lines = (f: string) =>
  readFileSync(dir + f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

type Answer = Record<string, Record<string, unknown[]>>;
interface Item {
  id: string;
  function: { name: string; parameters: { properties: Record<string, { type: string }>; required?: string[] } }[];
  ground_truth: Answer[];
}

function load(cat: string): Item[] {
  const answers = new Map(lines(`possible_answer/BFCL_v4_${cat}.json`).map((a: { id: string; ground_truth: Answer[] }) => [a.id, a.ground_truth]));
  return lines(`BFCL_v4_${cat}.json`).map((q: Item) => ({ ...q, ground_truth: answers.get(q.id)! }));
}

/** A concrete value from an accepted one: dicts (and lists of dicts) hold accepted-value lists per key. */
function resolve(v: unknown, pick: 'first' | 'last'): unknown {
  if (Array.isArray(v)) return v.map((x) => (x && typeof x === 'object' && !Array.isArray(x) ? resolve(x, pick) : x));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, vals] of Object.entries(v)) {
      const real = (vals as unknown[]).filter((x) => x !== '');
      if (real.length) out[k] = pick === 'first' ? real[0] : real[real.length - 1];
    }
    return out;
  }
  return v;
}

/** One concrete call per accepted answer: the pick-th accepted value of each parameter ("" = omit). */
// Parameters that are not in the function's schema are skipped: BFCL rejects them as unexpected,
// so they are not acceptable (parallel_multiple_12 and _26 list such a parameter as optional).
function concrete(gt: Answer[], pick: 'first' | 'last', fns?: Item['function']): { name: string; args: Record<string, unknown> }[] {
  return gt.map((a) => {
    const [name, params] = Object.entries(a)[0]!;
    const props = fns?.find((f) => f.name === name)?.parameters.properties;
    const args: Record<string, unknown> = {};
    for (const [p, vals] of Object.entries(params)) {
      if (props && !(p in props)) continue;
      const real = vals.filter((v) => v !== '');
      if (real.length) args[p] = resolve(pick === 'first' ? real[0] : real[real.length - 1], pick);
    }
    return { name, args };
  });
}

const asTools = (calls: { name: string; args: Record<string, unknown> }[]) =>
  calls.map((c, i) => ({ id: `call_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));

function py(v: unknown): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(py).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v as object)
      .map(([k, x]) => `${JSON.stringify(k)}: ${py(x)}`)
      .join(', ')}}`;
  return String(v);
}

const grader = loadGrader({ type: 'tool_call', reference: '{{item.ground_truth}}', functions: '{{item.function}}' });
const partial = loadGrader({ type: 'tool_call', reference: '{{item.ground_truth}}', functions: '{{item.function}}', scoring: 'partial' });

const CATS = ['simple_python', 'multiple', 'parallel', 'parallel_multiple'] as const;

describe('BFCL accepted answers score 1', () => {
  for (const cat of CATS) {
    it(`${cat}: first and last accepted values, as output_tools`, async () => {
      const items = load(cat);
      expect(items.length).toBeGreaterThanOrEqual(200);
      const failures: string[] = [];
      for (const item of items) {
        for (const pick of ['first', 'last'] as const) {
          const calls = concrete(item.ground_truth, pick, item.function);
          const r = await grade(grader, { item, sample: { output_tools: asTools(calls.slice().reverse()) } });
          if (r.score !== 1) failures.push(`${item.id} ${pick}: ${r.reason ?? r.error?.message}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('simple_python: the same calls written as Python text score 1', async () => {
    const failures: string[] = [];
    for (const item of load('simple_python')) {
      const text =
        '[' +
        concrete(item.ground_truth, 'first')
          .map(
            (c) =>
              `${c.name}(${Object.entries(c.args)
                .map(([k, v]) => `${k}=${py(v)}`)
                .join(', ')})`,
          )
          .join(', ') +
        ']';
      const r = await grade(grader, { item, output_text: text });
      if (r.score !== 1) failures.push(`${item.id}: ${r.reason ?? r.error?.message} :: ${text}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('BFCL mutated calls score below 1 with the right reason', () => {
  const items = CATS.flatMap((c) => load(c));

  async function expectMismatch(item: Item, calls: { name: string; args: Record<string, unknown> }[], kind: string) {
    const r = await grade(grader, { item, sample: { output_tools: asTools(calls) } });
    expect(r.valid).toBe(true);
    expect(r.score, `${item.id} ${kind}`).toBe(0);
    expect(r.metadata.mismatch, `${item.id}: ${r.reason}`).toBe(kind);
    const p = await grade(partial, { item, sample: { output_tools: asTools(calls) } });
    expect(p.score!).toBeLessThan(1);
    return r;
  }

  it('wrong function name', async () => {
    let n = 0;
    for (const item of items.filter((i) => i.ground_truth.length === 1)) {
      const calls = concrete(item.ground_truth, 'first', item.function);
      calls[0]!.name = 'not_a_function';
      const r = await expectMismatch(item, calls, 'wrong_func_name');
      expect(r.reason).toContain('not_a_function');
      n++;
    }
    expect(n).toBeGreaterThan(500);
  });

  it('missing required argument', async () => {
    let n = 0;
    for (const item of items) {
      const calls = concrete(item.ground_truth, 'first', item.function);
      const fn = item.function.find((f) => f.name === calls[0]!.name)!;
      const req = (fn.parameters.required ?? []).find((p) => p in calls[0]!.args);
      if (!req) continue;
      delete calls[0]!.args[req];
      const r = await expectMismatch(item, calls, 'missing_required');
      expect(r.reason).toContain(`"${req}"`);
      n++;
    }
    expect(n).toBeGreaterThan(800);
  });

  it('wrong value and wrong type', async () => {
    let values = 0;
    let types = 0;
    for (const item of items) {
      const calls = concrete(item.ground_truth, 'first', item.function);
      const fn = item.function.find((f) => f.name === calls[0]!.name)!;
      for (const [p, v] of Object.entries(calls[0]!.args)) {
        const t = fn.parameters.properties[p]?.type;
        if (t === 'integer' && typeof v === 'number') {
          const wrong = structuredClone(calls);
          wrong[0]!.args[p] = v + 7919;
          await expectMismatch(item, wrong, 'value_error');
          values++;
          const typed = structuredClone(calls);
          typed[0]!.args[p] = [v];
          await expectMismatch(item, typed, 'type_error');
          types++;
          break;
        }
        if (t === 'string' && typeof v === 'string') {
          const wrong = structuredClone(calls);
          wrong[0]!.args[p] = v + ' zzqx';
          await expectMismatch(item, wrong, 'value_error');
          values++;
          break;
        }
      }
    }
    expect(values).toBeGreaterThan(700);
    expect(types).toBeGreaterThan(200);
  });

  it('extra call', async () => {
    for (const item of items) {
      const calls = concrete(item.ground_truth, 'first', item.function);
      const r = await expectMismatch(item, [...calls, calls[0]!], 'wrong_count');
      expect(r.reason).toContain(`expected ${calls.length}, got ${calls.length + 1}`);
    }
  });

  it('partial credit counts the right arguments', async () => {
    const item = load('simple_python')[0]!;
    const calls = concrete(item.ground_truth, 'first', item.function);
    const keys = Object.keys(calls[0]!.args);
    calls[0]!.args[keys[0]!] = 'zzqx-wrong';
    const r = await grade(partial, { item, sample: { output_tools: asTools(calls) } });
    // name right, one of keys.length arguments wrong
    expect(r.score).toBeCloseTo(keys.length / (1 + keys.length), 10);
  });
});

describe('BFCL irrelevance: no call is correct', () => {
  const items = lines('BFCL_v4_irrelevance.json') as Item[];
  const g = loadGrader({ type: 'tool_call', reference: [], functions: '{{item.function}}' });
  it('any call scores 0, prose scores 1', async () => {
    expect(items.length).toBe(240);
    for (const item of items) {
      const call = [{ name: item.function[0]!.name, args: {} }];
      const bad = await grade(g, { item, sample: { output_tools: asTools(call) } });
      expect(bad.score).toBe(0);
      expect(bad.metadata.mismatch).toBe('unexpected_call');
      const good = await grade(g, { item, output_text: 'I cannot answer that with the tools I have.' });
      expect(good.score, good.reason).toBe(1);
      const empty = await grade(g, { item, sample: { output_tools: [] } });
      expect(empty.score).toBe(1);
    }
  });
});
