// BFCL multi-turn proof: every ground-truth sequence of the four categories (base, long_context,
// miss_func, miss_param; 800 entries) scores 1 when replayed as the model's turns, as call strings,
// and as BFCL prompting-model result steps; and structurally mutated sequences score 0 with
// BFCL's error_type at the turn of the mutation: every call of a turn dropped
// (empty_turn_model_response), a state-changing call added (instance_state_mismatch), turns missing
// (force_terminated). long_context entries use a made-up extension file (arbiter does not ship
// BFCL's), or the real export when ARBITER_BFCL_LONG_CONTEXT is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grade } from '../../dist/index.js';
import { CATEGORIES, type Entry, grader, loadCategory, writeSyntheticLongContext } from './helpers.js';

const realLongContext = process.env.ARBITER_BFCL_LONG_CONTEXT;
beforeAll(() => {
  if (!realLongContext) process.env.ARBITER_BFCL_LONG_CONTEXT = writeSyntheticLongContext();
});
afterAll(() => {
  if (!realLongContext) delete process.env.ARBITER_BFCL_LONG_CONTEXT;
});

const g = grader({ entry_id: '{{item.id}}' });

describe('every ground truth scores 1', () => {
  for (const cat of CATEGORIES) {
    it(`${cat}: all 200 entries, turns given as call strings`, async () => {
      const entries = loadCategory(cat);
      expect(entries).toHaveLength(200);
      const failures: string[] = [];
      for (const e of entries) {
        const r = await grade(g, { item: e, sample: { output_turns: e.ground_truth } });
        if (r.score !== 1) failures.push(`${e.id}: ${r.reason ?? r.error?.message}`);
        else {
          expect(r.steps).toEqual(e.ground_truth.map(() => 1));
          expect(r.metadata.long_context).toBe(cat === 'long_context');
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('base: as BFCL prompting-model result steps (one text step per turn)', async () => {
    const fmt = grader({ entry_id: '{{item.id}}', input_format: 'bfcl_result' });
    const failures: string[] = [];
    for (const e of loadCategory('base')) {
      // keyword-only calls survive BFCL's prompting decoder unchanged; positional ones do not
      if (e.ground_truth.flat().some((c) => !/^\w+\((\w+=.*)?\)$/s.test(c))) continue;
      const turns = e.ground_truth.map((t) => (t.length ? [`[${t.join(', ')}]`] : []));
      const r = await grade(fmt, { item: e, sample: { output_turns: turns } });
      if (r.score !== 1) failures.push(`${e.id}: ${r.reason ?? r.error?.message}`);
    }
    expect(failures).toEqual([]);
  });
});

/** A call that always changes the state of a class, when the entry involves that class. */
const STATE_CHANGERS: Record<string, string> = {
  GorillaFileSystem: "mkdir(dir_name='arbiter_extra_dir')",
  VehicleControlAPI: "set_navigation(destination='arbiter extra destination')",
  MessageAPI: "add_contact(user_name='arbiter_extra_user')",
  TicketAPI: "ticket_login(username='arbiter_extra_user', password='x')",
};

describe('mutated ground truths score 0 with BFCL error types', () => {
  const all: [string, Entry][] = CATEGORIES.flatMap((cat) => loadCategory(cat).map((e) => [cat, e] as [string, Entry]));

  it('dropping every call of a turn: empty_turn_model_response at that turn', async () => {
    for (const [, e] of all.filter((_, i) => i % 4 === 0)) {
      const t = e.ground_truth.findIndex((turn) => turn.length > 0);
      const turns = e.ground_truth.map((turn, i) => (i === t ? [] : turn));
      const r = await grade(g, { item: e, sample: { output_turns: turns } });
      expect(r.valid).toBe(true);
      expect(r.score).toBe(0);
      expect(r.metadata.error_type).toBe('multi_turn:empty_turn_model_response');
      expect(r.metadata.failed_turn).toBe(t);
      expect(r.steps![t]).toBe(0);
      expect(r.reason).toContain(`turn ${t}`);
    }
  });

  it('an extra state-changing call: instance_state_mismatch at that turn', async () => {
    let n = 0;
    for (const [, e] of all) {
      const cls = e.involved_classes.find((c) => STATE_CHANGERS[c]);
      if (!cls) continue;
      // the method must map to this class (a later involved class with the same method name would win)
      const t = e.ground_truth.findIndex((turn) => turn.length > 0);
      const turns = e.ground_truth.map((turn, i) => (i === t ? [...turn, STATE_CHANGERS[cls]!] : turn));
      const r = await grade(g, { item: e, sample: { output_turns: turns } });
      expect(r.score, `${e.id}`).toBe(0);
      expect(r.metadata.error_type, `${e.id}: ${r.reason}`).toBe('multi_turn:instance_state_mismatch');
      expect(r.metadata.failed_turn).toBe(t);
      expect(r.reason).toContain(`${cls} state differs`);
      n++;
    }
    expect(n).toBeGreaterThan(500);
  });

  it('fewer turns than the ground truth: force_terminated, nothing executed', async () => {
    const e = loadCategory('base')[0]!;
    const r = await grade(g, { item: e, sample: { output_turns: e.ground_truth.slice(0, -1) } });
    expect(r.score).toBe(0);
    expect(r.metadata.error_type).toBe('multi_turn:force_terminated');
    expect(r.steps).toEqual(e.ground_truth.map(() => 0));
  });
});
