// verl's SandboxFusion reward (reward_model.sandbox_fusion.url=http://HOST:PORT/run_code) against a
// live `arbiter serve --sandbox-api`, through a client that reproduces verl's request, retries and
// reading of the reply (test/integrations/clients/verl_sandbox_fusion.py, from
// verl/utils/reward_score/sandbox_fusion/utils.py): per-case results True/False/-1/-2/-3/-4.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type ServeProcess } from '../server/serve-process.js';
import { CLIENTS, runPython } from './run-python.js';

const CLIENT = `${CLIENTS}verl_sandbox_fusion.py`;
const dir = mkdtempSync(join(tmpdir(), 'arbiter-verl-sf-'));
const GRADER = join(dir, 'g.json');
writeFileSync(GRADER, JSON.stringify({ type: 'string_check', name: 'g', input: '{{sample.output_text}}', reference: 'x', operation: 'eq' }));

let srv: ServeProcess;
let short: ServeProcess;
beforeAll(async () => {
  [srv, short] = await Promise.all([serve(['--grader', GRADER, '--sandbox-api']), serve(['--grader', GRADER, '--sandbox-api', '--deadline-ms', '300'])]);
});
afterAll(async () => {
  await Promise.all([srv?.stop(), short?.stop()]);
});

const SUM = 'a, b = map(int, input().split())\nprint(a + b)';

describe('verl sandbox_fusion check_correctness', () => {
  it('scores stdin/stdout cases: right True, wrong False, crash -2, timeout -3', async () => {
    const cases = [
      { stdin: '1 2', expected: '3' },
      { stdin: '10 20', expected: '30\n' },
      { stdin: '2 2', expected: '5' },
      { stdin: 'x y', expected: '0' },
    ];
    const r = await runPython(CLIENT, { url: `${srv.url}/run_code`, code: SUM, language: 'python', timeout: 5, cases });
    expect(r.stderr).toBe('');
    expect(r.out.results).toEqual([true, true, false, -2]);
    expect(r.out.metadata.map((m: { status: string }) => m.status)).toEqual(['success', 'success', 'wrong_answer', 'runtime_error']);
    expect(r.out.metadata[3]).toMatchObject({ exit_code: 1, run_status: 'Finished', api_status: 'Failed', attempts: 1 });
    const slow = await runPython(CLIENT, {
      url: `${srv.url}/run_code`,
      code: 'while True: pass',
      language: 'python',
      timeout: 1,
      cases: [{ stdin: '', expected: '' }],
    });
    expect(slow.out.results).toEqual([-3]);
    expect(slow.out.metadata[0]).toMatchObject({ status: 'timeout', run_status: 'TimeLimitExceeded', exit_code: null });
  });

  it('C++: a compile error is -4 for every case; a right program passes', async () => {
    const cases = [
      { stdin: '1 2', expected: '3' },
      { stdin: '4 5', expected: '9' },
    ];
    const bad = await runPython(CLIENT, { url: `${srv.url}/run_code`, code: 'int main() { return nope; }', language: 'cpp', timeout: 10, cases });
    expect(bad.out.results).toEqual([-4, -4]);
    expect(bad.out.metadata[0]).toMatchObject({ compile_status: 'Finished', run_status: null });
    const good = await runPython(CLIENT, {
      url: `${srv.url}/run_code`,
      code: '#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}',
      language: 'cpp',
      timeout: 10,
      cases,
    });
    expect(good.out.results).toEqual([true, true]);
  });

  it.each([
    [
      'go',
      'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int\n\tfmt.Scan(&a, &b)\n\tfmt.Println(a + b)\n}\n',
      'package main\nfunc main() { x }\n',
      -4,
    ],
    [
      'rust',
      'fn main() { let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap(); let v: Vec<i64> = s.split_whitespace().map(|t| t.parse().unwrap()).collect(); println!("{}", v[0] + v[1]); }',
      'fn main() { let x: i32 = "s"; }',
      -4,
    ],
    [
      'java',
      'import java.util.*;\npublic class Main { public static void main(String[] a) { Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); } }',
      'public class Main { int x = "s"; }',
      -4,
    ],
    [
      'typescript',
      'const [a, b]: number[] = require("fs").readFileSync(0, "utf8").split(" ").map(Number);\nconsole.log(a + b);\n',
      'const x: number = ;\n',
      -2,
    ],
  ])(
    '%s: right True, wrong False; a compile error is -4 for every case (a typescript syntax error: -2, tsx fails the run)',
    async (language, code, broken, brokenResult) => {
      const cases = [
        { stdin: '1 2', expected: '3' },
        { stdin: '4 5', expected: '10' },
      ];
      const r = await runPython(CLIENT, { url: `${srv.url}/run_code`, code, language, timeout: 10, cases });
      expect(r.stderr).toBe('');
      expect(r.out.results).toEqual([true, false]);
      const bad = await runPython(CLIENT, { url: `${srv.url}/run_code`, code: broken, language, timeout: 10, cases });
      expect(bad.out.results).toEqual([brokenResult, brokenResult]);
    },
  );

  it('a language verl lists but arbiter does not run is a SandboxError (-1); one verl does not list never leaves the client', async () => {
    const php = await runPython(CLIENT, { url: `${srv.url}/run_code`, code: '<?php echo 1;', language: 'php', cases: [{ stdin: '', expected: '' }] });
    expect(php.out.results).toEqual([-1]);
    expect(php.out.metadata[0]).toMatchObject({ status: 'sandbox_error', api_status: 'SandboxError', attempts: 1 });
    const cobol = await runPython(CLIENT, { url: `${srv.url}/run_code`, code: 'x', language: 'cobol', cases: [{ stdin: '', expected: '' }] });
    expect(cobol.out.metadata[0]).toMatchObject({ status: 'api_error', attempts: 0, api_request_error: 'Unsupported language: cobol' });
  });

  it('a run past the server deadline is a 504, which verl retries 3 times, then -1 (never a reward)', async () => {
    const r = await runPython(CLIENT, {
      url: `${short.url}/run_code`,
      code: 'while True: pass',
      language: 'python',
      timeout: 20,
      retry_delay_scale: 0,
      cases: [{ stdin: '', expected: '' }],
    });
    expect(r.out.results).toEqual([-1]);
    expect(r.out.metadata[0]).toMatchObject({
      status: 'api_error',
      attempts: 3,
      api_request_error: expect.stringMatching(/Gateway Timeout \(504\) on attempt 3\/3/),
    });
  });

  it('any other refusal (here a 404) ends the loop at once, with no retry', async () => {
    const r = await runPython(CLIENT, { url: `${srv.url}/run_code_nope`, code: SUM, language: 'python', cases: [{ stdin: '1 2', expected: '3' }] });
    expect(r.out.metadata[0]).toMatchObject({ status: 'api_error', attempts: 1, api_request_error: expect.stringMatching(/404/) });
  });
});
