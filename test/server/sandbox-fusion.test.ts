// The SandboxFusion-compatible endpoints over real HTTP with the real sandbox: /run_code's answers
// (status mapping, compile and run results, return codes, files in and out, SandboxFusion's 422
// and error answers), the operator's switch and maxima, the refusal without the sandbox, auth,
// the queue (429) and the deadline (504), and GET /v1/ping.
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Services } from '../../dist/index.js';
import { PROJECT } from '../code/helpers.js';
import { ANSWER_CHECK, get, post, start, waitForHealth, type Running } from './helpers.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

let srv: Running;
beforeAll(async () => {
  srv = await start({ answer_check: ANSWER_CHECK }, { sandboxApi: true });
});
afterAll(() => srv.close());
const run = (body: unknown, s: Running = srv, headers: Record<string, string> = {}) => post(`${s.url}/run_code`, body, headers);

describe('POST /run_code answers as SandboxFusion does', () => {
  it('runs python with stdin: Success, the run result with seconds, no compile result', async () => {
    const r = await run({ code: 'import sys\nprint(input()[::-1])\nprint("warn", file=sys.stderr)', language: 'python', stdin: 'abc\n' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['status', 'message', 'compile_result', 'run_result', 'executor_pod_name', 'files']);
    expect(r.body).toMatchObject({ status: 'Success', message: '', compile_result: null, executor_pod_name: null, files: {} });
    expect(r.body.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'cba\n', stderr: 'warn\n' });
    expect(typeof r.body.run_result.execution_time).toBe('number');
  });

  it('a non-zero exit is Failed with the return code; a signal is its negative number', async () => {
    const exit = await run({ code: 'import sys\nsys.stderr.write("bad")\nraise SystemExit(3)', language: 'python' });
    expect(exit.body).toMatchObject({ status: 'Failed', message: '', run_result: { status: 'Finished', return_code: 3, stderr: 'bad' } });
    const crash = await run({ code: 'raise ValueError("nope")', language: 'python' });
    expect(crash.body.run_result).toMatchObject({ status: 'Finished', return_code: 1, stderr: expect.stringMatching(/ValueError: nope/) });
    const killed = await run({ code: 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)', language: 'python' });
    expect(killed.body).toMatchObject({ status: 'Failed', run_result: { status: 'Finished', return_code: -9 } });
  });

  it('a run past run_timeout (seconds) is TimeLimitExceeded with no return code and its output so far', async () => {
    const r = await run({ code: 'import sys, time\nprint("started", flush=True)\nwhile True: pass', language: 'python', run_timeout: 1 });
    expect(r.body).toMatchObject({ status: 'Failed', message: '', run_result: { status: 'TimeLimitExceeded', return_code: null, stdout: 'started\n' } });
    expect(typeof r.body.run_result.execution_time).toBe('number');
  });

  it('compiles cpp (compile_result, then run_result); a compile error has no run', async () => {
    const ok = await run({
      code: '#include <cstdio>\nint main(){int a,b;if(scanf("%d %d",&a,&b)!=2)return 2;printf("%d\\n",a+b);}',
      language: 'cpp',
      stdin: '2 40',
    });
    expect(ok.body).toMatchObject({
      status: 'Success',
      compile_result: { status: 'Finished', return_code: 0 },
      run_result: { status: 'Finished', return_code: 0, stdout: '42\n' },
    });
    const bad = await run({ code: 'int main() { return undeclared; }', language: 'cpp' });
    expect(bad.body).toMatchObject({
      status: 'Failed',
      message: '',
      run_result: null,
      compile_result: { status: 'Finished', return_code: 1, stderr: expect.stringMatching(/undeclared/) },
    });
  });

  it('runs nodejs and bash', async () => {
    const js = await run({ code: 'const s = require("fs").readFileSync(0, "utf8"); console.log(s.trim().toUpperCase())', language: 'nodejs', stdin: 'hey' });
    expect(js.body).toMatchObject({ status: 'Success', run_result: { stdout: 'HEY\n', return_code: 0 } });
    const sh = await run({ code: 'read x; echo $((x * 2)); exit 4', language: 'bash', stdin: '21\n' });
    expect(sh.body).toMatchObject({ status: 'Failed', run_result: { stdout: '42\n', return_code: 4 } });
  });

  it('compiles go (go build, then the binary); a compile error has no run', async () => {
    const ok = await run({
      code: 'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int\n\tfmt.Scan(&a, &b)\n\tfmt.Println(a * b)\n}\n',
      language: 'go',
      stdin: '6 7',
    });
    expect(ok.body).toMatchObject({
      status: 'Success',
      compile_result: { status: 'Finished', return_code: 0 },
      run_result: { return_code: 0, stdout: '42\n' },
    });
    // go build's own status for a compile error is 2
    const bad = await run({ code: 'package main\n\nfunc main() { nope() }\n', language: 'go' });
    expect(bad.body).toMatchObject({
      status: 'Failed',
      run_result: null,
      compile_result: { status: 'Finished', return_code: 2, stderr: expect.stringMatching(/undefined: nope/) },
    });
  });

  it('compiles rust with plain `rustc FILE -o test` as SandboxFusion does (edition 2015: `async` is an identifier)', async () => {
    const r = await run({
      code: 'fn main() { let async = 41; let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap(); println!("{} {}", async + 1, s.trim()); }',
      language: 'rust',
      stdin: 'x\n',
    });
    expect(r.body).toMatchObject({ status: 'Success', compile_result: { return_code: 0 }, run_result: { return_code: 0, stdout: '42 x\n' } });
    const bad = await run({ code: 'fn main() { let x: i32 = "s"; }', language: 'rust' });
    expect(bad.body).toMatchObject({
      status: 'Failed',
      run_result: null,
      compile_result: { return_code: 1, stderr: expect.stringMatching(/mismatched types/) },
    });
  });

  it('compiles java as Main.java and runs `java -cp . -ea Main` (nested classes, assertions on; another public class does not compile)', async () => {
    const ok = await run({
      code: 'import java.util.*;\npublic class Main {\n  static class Twice { static int of(int x) { return 2 * x; } }\n  public static void main(String[] a) { Scanner s = new Scanner(System.in); System.out.println(Twice.of(s.nextInt())); }\n}\n',
      language: 'java',
      stdin: '21',
    });
    expect(ok.body).toMatchObject({ status: 'Success', compile_result: { return_code: 0 }, run_result: { return_code: 0, stdout: '42\n' } });
    const asserts = await run({
      code: 'public class Main { public static void main(String[] a) { assert 1 > 2 : "no"; System.out.println("ran"); } }',
      language: 'java',
    });
    expect(asserts.body).toMatchObject({ status: 'Failed', run_result: { return_code: 1, stdout: '', stderr: expect.stringMatching(/AssertionError: no/) } });
    const other = await run({ code: 'public class Solution { public static void main(String[] a) { } }', language: 'java' });
    expect(other.body).toMatchObject({
      status: 'Failed',
      run_result: null,
      compile_result: { return_code: 1, stderr: expect.stringMatching(/class Solution is public, should be declared in a file named Solution.java/) },
    });
  });

  it("java: the compiled classes win over request files of the same name, as javac's output overwrites them", async () => {
    // regression: the request's Main.class replaced the compiled one (then: a duplicate file name)
    const r = await run({
      code: 'public class Main { public static void main(String[] a) { System.out.println("compiled"); } }',
      language: 'java',
      files: { 'Main.class': b64('not a class file') },
    });
    expect(r.body).toMatchObject({ status: 'Success', run_result: { return_code: 0, stdout: 'compiled\n' } });
  });

  it('runs typescript as tsx does: one command, types stripped; a syntax error fails the run (no compile result)', async () => {
    const ok = await run({
      code: 'interface P { n: number }\nconst p: P = { n: Number(require("fs").readFileSync(0, "utf8")) };\nconsole.log(p.n * 2);\n',
      language: 'typescript',
      stdin: '21',
    });
    expect(ok.body).toMatchObject({ status: 'Success', compile_result: null, run_result: { status: 'Finished', return_code: 0, stdout: '42\n' } });
    const bad = await run({ code: 'const x: number = ;', language: 'typescript' });
    expect(bad.body).toMatchObject({
      status: 'Failed',
      compile_result: null,
      run_result: { status: 'Finished', return_code: 1, stderr: expect.stringMatching(/main.ts\(1,19\): error TS1109/) },
    });
  });

  it('writes base64 files into the working directory (subfolders, importable) and returns fetch_files in base64', async () => {
    const r = await run({
      code: 'import helper, os\nos.mkdir("out")\nopen("out/result.txt", "w").write(helper.twice(open("data/in.txt").read()))\nprint("done", end="")',
      language: 'python',
      files: { 'helper.py': b64('def twice(s):\n    return s * 2\n'), 'data/in.txt': b64('ab'), 'skip.txt': null, x_IGNORE_THIS_FILE: b64('no') },
      fetch_files: ['out/result.txt', 'missing.txt', 'data/in.txt', 'skip.txt'],
    });
    expect(r.body.status).toBe('Success');
    expect(r.body.run_result.stdout).toBe('done');
    expect(r.body.files).toEqual({ 'out/result.txt': b64('abab'), 'data/in.txt': b64('ab') });
    // fetched files do not leak into stdout, and the return code is the program's own
    const failing = await run({ code: 'open("o.bin", "wb").write(bytes(range(256)))\nraise SystemExit(5)', language: 'python', fetch_files: ['o.bin'] });
    expect(failing.body).toMatchObject({ status: 'Failed', run_result: { return_code: 5, stdout: '' } });
    expect(Buffer.from(failing.body.files['o.bin'], 'base64')).toEqual(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
  });

  it('compiled languages see the request files at compile and run time, and fetch_files come back', async () => {
    const r = await run({
      code: '#include "twice.h"\n#include <fstream>\nint main() { std::ifstream in("data/n.txt"); int n; in >> n; std::ofstream("out.txt") << twice(n); return 0; }\n',
      language: 'cpp',
      files: { 'twice.h': b64('inline int twice(int x) { return 2 * x; }\n'), 'data/n.txt': b64('21') },
      fetch_files: ['out.txt'],
    });
    expect(r.body).toMatchObject({ status: 'Success', compile_result: { return_code: 0 }, run_result: { return_code: 0, stdout: '' } });
    expect(r.body.files).toEqual({ 'out.txt': b64('42') });
    const java = await run({
      code: 'public class Main { public static void main(String[] a) throws Exception { java.nio.file.Files.writeString(java.nio.file.Path.of("o.txt"), new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("in.txt"))).toUpperCase()); } }',
      language: 'java',
      files: { 'in.txt': b64('abc') },
      fetch_files: ['o.txt'],
    });
    expect(java.body).toMatchObject({ status: 'Success', files: { 'o.txt': b64('ABC') } });
  });

  it("refuses a file outside the working directory with SandboxFusion's error answer", async () => {
    for (const name of ['../escape.txt', '/etc/evil', 'a/../../b']) {
      const r = await run({ code: 'print(1)', language: 'python', files: { [name]: b64('x') } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'SandboxError', compile_result: null, run_result: null, files: {} });
      expect(r.body.message).toMatch(/invalid sandbox file name/);
    }
  });

  it('a negative, zero or absurd limit is a 400 naming the field, and nothing runs (not a time-limit failure)', async () => {
    const code = 'print("ran")';
    for (const [field, value] of [
      ['run_timeout', -5],
      ['run_timeout', 0],
      ['run_timeout', 1e12],
      ['compile_timeout', -1],
      ['memory_limit_MB', -7],
      ['memory_limit_MB', 0],
      ['memory_limit_MB', 1e9],
    ] as const) {
      const r = await run({ code, language: 'python', [field]: value });
      expect(r.status, `${field}=${value}`).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.message).toMatch(new RegExp(`request body field "${field}": ${field} must be`));
      expect(r.body.error.details).toEqual([expect.objectContaining({ field, value })]);
    }
    // the limits SandboxFusion clients send still run: seconds above 0, memory -1 or a size
    const ok = await run({ code, language: 'python', run_timeout: 5.5, memory_limit_MB: -1 });
    expect(ok.status).toBe(200);
    expect(ok.body.run_result).toMatchObject({ status: 'Finished', stdout: 'ran\n' });
  });

  it('a SandboxFusion language arbiter does not run is a SandboxError; a name SandboxFusion does not know is its 422', async () => {
    const php = await run({ code: '<?php echo 1;', language: 'php' });
    expect(php.status).toBe(200);
    expect(php.body).toMatchObject({ status: 'SandboxError', run_result: null, compile_result: null });
    expect(php.body.message).toMatch(/"php": it is not supported.*supported here: python, nodejs, typescript, cpp, go, rust, java, bash/);
    const cobol = await run({ code: 'x', language: 'cobol' });
    expect(cobol.status).toBe(422);
    expect(cobol.body.detail[0]).toMatchObject({ type: 'literal_error', loc: ['body', 'language'], input: 'cobol' });
    const missing = await run({ language: 'python', run_timeout: 'soon', fetch_files: [1] });
    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'code'],
      ['body', 'run_timeout'],
      ['body', 'fetch_files', 0],
    ]);
  });

  it('runs in the sandbox: no project, no network', async () => {
    const r = await run({
      code: `import os, socket\nprint(os.path.exists(${JSON.stringify(PROJECT)}))\ntry:\n    socket.create_connection(("1.1.1.1", 80), timeout=2)\n    print("net")\nexcept OSError:\n    print("no net")`,
      language: 'python',
    });
    expect(r.body.run_result.stdout).toBe('False\nno net\n');
  });

  it('GET /v1/ping answers "pong"', async () => {
    const r = await get(`${srv.url}/v1/ping`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body).toBe('pong');
  });
});

describe('operator control', () => {
  it('is off unless the operator turns it on', async () => {
    const off = await start({ answer_check: ANSWER_CHECK });
    try {
      expect((await run({ code: 'print(1)', language: 'python' }, off)).status).toBe(404);
      expect((await get(`${off.url}/v1/ping`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it("clamps a request's timeouts and memory to the operator maxima, and says so", async () => {
    const tight = await start({ answer_check: ANSWER_CHECK }, { sandboxApi: { maxRunTimeoutS: 1, maxMemoryMb: 200 }, deadlineMs: 20_000 });
    try {
      const slow = await run({ code: 'while True: pass', language: 'python', run_timeout: 15 }, tight);
      expect(slow.body.run_result.status).toBe('TimeLimitExceeded');
      expect(slow.headers.get('x-arbiter-clamped')).toBe('run_timeout=1');
      const big = await run({ code: 'x = bytearray(400 * 1024 * 1024)\nprint(len(x))', language: 'python', memory_limit_MB: 4096, run_timeout: 1 }, tight);
      expect(big.body).toMatchObject({ status: 'Failed', run_result: { status: 'Finished', return_code: 1, stderr: expect.stringMatching(/MemoryError/) } });
      expect(big.headers.get('x-arbiter-clamped')).toBe('memory_limit_MB=200');
      // -1 (no limit asked) gets the operator's maximum too
      const none = await run({ code: 'x = bytearray(400 * 1024 * 1024)', language: 'python', memory_limit_MB: -1, run_timeout: 1 }, tight);
      expect(none.body.run_result.stderr).toMatch(/MemoryError/);
      const small = await run({ code: 'x = bytearray(50 * 1024 * 1024)\nprint("ok")', language: 'python', memory_limit_MB: 150, run_timeout: 1 }, tight);
      expect(small.body).toMatchObject({ status: 'Success', run_result: { stdout: 'ok\n' } });
      expect(small.headers.get('x-arbiter-clamped')).toBeNull();
    } finally {
      await tight.close();
    }
  });

  it('refuses with 403 while the server runs code without the sandbox, running nothing', async () => {
    const marker = `/tmp/arbiter-sf-unsafe-${randomBytes(6).toString('hex')}`;
    const services = new Services({ unsafeNoSandbox: true });
    const unsafe = await start({ answer_check: ANSWER_CHECK }, { sandboxApi: true, services });
    try {
      const r = await run({ code: `open(${JSON.stringify(marker)}, "w").write("ran")`, language: 'python' }, unsafe);
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'sandbox_required', message: expect.stringMatching(/without the sandbox/) });
      expect(existsSync(marker)).toBe(false);
    } finally {
      await unsafe.close();
      await services.close();
    }
  });

  it('requires the token like every other route', async () => {
    const locked = await start({ answer_check: ANSWER_CHECK }, { sandboxApi: true, token: 'tok-1' });
    try {
      expect((await run({ code: 'print(1)', language: 'python' }, locked)).status).toBe(401);
      expect((await get(`${locked.url}/v1/ping`)).status).toBe(401);
      const ok = await run({ code: 'print(1)', language: 'python' }, locked, { authorization: 'Bearer tok-1' });
      expect(ok.body.run_result.stdout).toBe('1\n');
    } finally {
      await locked.close();
    }
  });

  it('takes a queue slot: 429 when the queue is full', async () => {
    const busy = await start({ answer_check: ANSWER_CHECK }, { sandboxApi: true, concurrency: 1, maxQueue: 1 });
    try {
      const hold = { code: 'import time\ntime.sleep(60)', language: 'python', run_timeout: 3 };
      const first = run(hold, busy);
      await waitForHealth(busy.url, (h) => h.in_flight === 1);
      const second = run(hold, busy);
      await waitForHealth(busy.url, (h) => h.queued === 1);
      const third = await run(hold, busy);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await first).body.run_result.status).toBe('TimeLimitExceeded');
      expect((await second).body.run_result.status).toBe('TimeLimitExceeded');
    } finally {
      await busy.close();
    }
  });

  it('answers 504 when the request deadline passes before the run ends (never a made-up result)', async () => {
    const short = await start({ answer_check: ANSWER_CHECK }, { sandboxApi: true, deadlineMs: 300 });
    try {
      const r = await run({ code: 'while True: pass', language: 'python', run_timeout: 20 }, short);
      expect(r.status).toBe(504);
      expect(r.body.error).toMatchObject({ code: 'deadline_exceeded', message: expect.stringMatching(/deadline of 300 ms/) });
      await waitForHealth(short.url, (h) => h.in_flight === 0);
    } finally {
      await short.close();
    }
  });

  it('refuses unknown maxima and non-positive ones at start', async () => {
    await expect(start({ answer_check: ANSWER_CHECK }, { sandboxApi: { maxRunTimeout: 3 } as never })).rejects.toThrow(
      /unknown server option sandboxApi.maxRunTimeout/,
    );
    await expect(start({ answer_check: ANSWER_CHECK }, { sandboxApi: { maxMemoryMb: 0 } })).rejects.toThrow(/sandboxApi.maxMemoryMb must be a positive number/);
  });
});
