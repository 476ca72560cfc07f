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
import { BfclEnv, readConfigText, Side } from '../../dist/envs/bfcl_multi_turn/apis/index.js';
import { pyDeepCopy } from '../../dist/py/values.js';
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
        scenario: (c: string) => (read.scenarios.has(c) ? pyDeepCopy(read.scenarios.get(c)!) : undefined),
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

describe('headline API semantics (values from the fixture, so any change to them shows here)', () => {
  const seqs = JSON.parse(fixture('oracle-api-calls.json')) as {
    name: string;
    classes: string[];
    initial_config: string;
    calls: string[];
    results: string[];
  }[];
  /** arbiter's result of the n-th occurrence of `call` in sequence `name`. */
  function resultOf(name: string, call: string, nth = 0): string {
    const s = seqs.find((x) => x.name === name)!;
    const read = readConfigText(s.initial_config);
    const side = new Side({
      env: new BfclEnv(),
      involvedClasses: s.classes,
      scenario: (c: string) => (read.scenarios.has(c) ? pyDeepCopy(read.scenarios.get(c)!) : undefined),
      longContext: false,
      modelName: 'unit',
      entryId: s.name,
    });
    let seen = 0;
    for (const c of s.calls) {
      const r = side.execute([c])[0]!;
      if (c === call && seen++ === nth) return r;
    }
    throw new Error(`no ${call} in ${name}`);
  }

  it('file system: missing file, cd above the root, a non-str content written then read as text', () => {
    expect(resultOf('fs', "cat(file_name='missing.txt')")).toBe('{"error": "cat: \'missing.txt\': No such file or directory"}');
    expect(resultOf('fs', "cd(folder='..')")).toBe('{"error": "Current directory is already the root. Cannot go back."}');
    expect(resultOf('fs', "echo(content=5, file_name='t.txt')")).toBe('None');
    expect(resultOf('fs', "wc(file_name='t.txt')")).toBe("Error during execution: 'int' object has no attribute 'splitlines'");
  });

  it('trading: insufficient funds, float balance, seeded transaction timestamps', () => {
    expect(resultOf('trading', "place_order(order_type='Buy', symbol='AAPL', price=300.0, amount=5)")).toBe(
      '{"error": "Insufficient funds: required $1500.00 but only $1000.00 available."}',
    );
    expect(resultOf('trading', 'withdraw_funds(amount=5000)')).toBe('{"error": "Insufficient funds for withdrawal."}');
    expect(resultOf('trading', 'fund_account(amount=250)')).toBe('{"status": "Account funded successfully", "new_balance": 1150.0}');
    expect(resultOf('trading', 'get_transaction_history()')).toBe(
      '{"transaction_history": [{"type": "withdrawal", "amount": 100, "timestamp": "2024-09-02 05:40:15"}, {"type": "deposit", "amount": 250, "timestamp": "2024-09-01 12:26:34"}, {"type": "deposit", "amount": 0.5, "timestamp": "2024-09-02 04:29:48"}]}',
    );
  });

  it('travel, vehicle, messages, posts, math: seeded ids, str * int, mutable defaults, mpmath and decimal', () => {
    expect(
      resultOf(
        'travel',
        "authenticate_travel(client_id='c', client_secret='s', refresh_token='r', grant_type='read_write', user_first_name='Ann', user_last_name='Lee')",
      ),
    ).toBe('{"expires_in": 2, "access_token": "488941", "token_type": "Bearer", "scope": "read_write"}');
    expect(resultOf('travel', "compute_exchange_rate(base_currency='USD', target_currency='RMB', value='5')")).toBe('{"exchanged_value": 5555555.0}');
    expect(resultOf('vehicle', 'get_current_speed()')).toBe('{"currentSpeed": 111.92365689097284}');
    expect(resultOf('message', "send_message(receiver_id='USR002', message='new for bob')")).toBe(
      '{"sent_status": true, "message_id": {"new_id": 67410}, "message": "Message sent to \'USR002\' successfully."}',
    );
    // mention() extended the shared mentions=[] default, so the next tweet without mentions has them
    expect(resultOf('twitter', "post_tweet(content='Second', tags=['#t'])")).toBe(
      '{"id": 2, "username": "ann", "content": "Second", "tags": ["#t"], "mentions": ["@bob"]}',
    );
    expect(resultOf('math', 'logarithm(value=20, base=10, precision=2)')).toBe("{'result': mpf('1.3027')}");
    expect(resultOf('math', 'square_root(number=2, precision=5)')).toBe("{'result': Decimal('1.4142')}");
  });
});
