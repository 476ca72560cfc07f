// arbiter's JavaScript (node) driver: the harness process (runs in the sandbox as main.js, a
// CommonJS script; the protocol is described in ../harness.ts). Reads the nonce line and the spec
// (JSON) from stdin, then starts the solution in a process of its own (host.js, a fresh node whose
// stdout and stderr go nowhere, under a no-process-creation seccomp filter when the spec carries
// one) and runs the tests of the spec's mode (humaneval, asserts, function) here, where no
// solution code ever runs: the solution's functions are stand-ins that send their arguments to
// that process and return the plain data it answers (host.js's codec). Writes one
// `<nonce> <verdict...>` line per test, then `<nonce> done`.
const __arbiter = (() => {
  'use strict';
  const fs = require('node:fs');
  const vm = require('node:vm');
  const childProcess = require('node:child_process');
  const { codec } = require('./host.js');
  const writeSync = fs.writeSync;
  const readSync = fs.readSync;
  const readFileSync = fs.readFileSync;
  const runInThisContext = vm.runInThisContext;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const apply = Reflect.apply;
  const bufferFrom = Buffer.from;
  const strSlice = String.prototype.slice;
  const strSplit = String.prototype.split;
  const arrJoin = Array.prototype.join;
  const arrSlice = Array.prototype.slice;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const now = () => Number(process.hrtime.bigint() / 1000000n);
  const reallyExit = typeof process.reallyExit === 'function' ? process.reallyExit.bind(process) : process.exit.bind(process);
  const input = readFileSync(0, 'utf8');
  const nl = input.indexOf('\n');
  const nonce = input.slice(0, nl).trim();
  const spec = parse(input.slice(nl + 1));
  const env = { ...process.env };
  const out = (text) => {
    const b = bufferFrom(text, 'utf8');
    for (let off = 0; off < b.length; ) {
      try {
        off += writeSync(1, b, off, b.length - off);
      } catch (e) {
        if (e?.code !== 'EAGAIN') throw e;
      }
    }
  };
  const emit = (a, b, c) => out('\n' + nonce + ' ' + a + (b === undefined ? '' : ' ' + b) + (c === undefined ? '' : ' ' + c) + '\n');
  const describe = (e) => {
    let s;
    try {
      s = e !== null && (typeof e === 'object' || typeof e === 'function') && 'stack' in e ? (ownStacks.get(e) ?? e.stack) : e;
      if (typeof s === 'symbol') s = s.description;
      if (typeof s !== 'string') s = '' + s;
      s = apply(arrJoin, apply(arrSlice, apply(strSplit, s, ['\n']), [0, 3]), [' | ']);
      if (typeof s !== 'string') s = 'error';
      s = apply(strSlice, s, [0, 400]);
    } catch {
      s = 'an exception that cannot be described';
    }
    const j = stringify(s);
    return typeof j === 'string' ? j : '"error"';
  };
  // the stack of an error as it was made (node later puts the line that rethrew it first): a
  // failed console.assert's, an error of the solution's
  const ownStacks = new WeakMap();
  const fatal = (what) => {
    emit('error', stringify(what));
    finish(1);
  };
  const finish = (status) => {
    kill();
    reallyExit(status);
  };

  // ---- the solution's process and the call protocol (length-prefixed JSON over fd 3) ----
  const ENDED = "the solution's process ended during the call (an exit or a crash)";
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const MAX_REPLY = 64 * 1024 * 1024;
  const MAX_STARTS = 10;
  let host; // { child, fd } while the solution's process is usable
  let starts = 0;
  // what went wrong with the solution's process during the current test: fails (or times out)
  // the test whatever the test code did with the error the stand-in threw
  let trouble;
  let busy = false;

  const filter = typeof spec.spawn_filter === 'string' ? bufferFrom(spec.spawn_filter, 'base64') : undefined;
  const helper = typeof spec.seccomp_helper === 'string' ? spec.seccomp_helper : undefined;

  const kill = () => {
    if (!host) return;
    try {
      host.child.kill('SIGKILL');
    } catch {
      // already gone
    }
    host = undefined;
    busy = false;
  };
  const start = () => {
    starts++;
    const argv = [...process.execArgv, 'host.js'];
    const stdio = ['ignore', 'ignore', 'ignore', 'pipe'];
    let file = process.execPath;
    let args = argv;
    let filterFd;
    if (filter) {
      // the filter reaches the helper as a file on fd 4, deleted once the helper has it open
      const name = `.spawn-filter-${process.pid}-${starts}`;
      fs.writeFileSync(name, filter, { mode: 0o600 });
      filterFd = fs.openSync(name, 'r');
      fs.unlinkSync(name);
      stdio.push(filterFd);
      file = helper;
      // (--keep-fds: the helper would otherwise close fd 3, the channel, at the exec; --apart: a
      // Landlock domain of its own, so that it cannot reach this process's memory or fds)
      args = ['--seccomp-fd=4', '--keep-fds', '--apart', '--', process.execPath, ...argv];
    }
    let child;
    try {
      child = childProcess.spawn(file, args, { stdio, env, cwd: process.cwd(), windowsHide: true });
    } catch (e) {
      fatal(`the solution's process could not be started: ${e?.message}`);
    }
    if (filterFd !== undefined) fs.closeSync(filterFd);
    const fd = child.pid === undefined ? undefined : child.stdio[3]?._handle?.fd;
    if (typeof fd !== 'number' || fd < 0) fatal("the solution's process could not be started (no channel to it)");
    host = { child, fd };
  };
  const writeAll = (fd, b, deadline) => {
    let pause = 0;
    for (let off = 0; off < b.length; ) {
      try {
        off += writeSync(fd, b, off, b.length - off);
        pause = 0;
      } catch (e) {
        if (e?.code !== 'EAGAIN') return false;
        if (deadline !== undefined && now() > deadline) return 'timeout';
        Atomics.wait(nap, 0, 0, (pause = Math.min(2, pause + 0.05)));
      }
    }
    return true;
  };
  // reads exactly n bytes: a Buffer, 'eof', 'timeout' or 'error'
  const readAll = (fd, n, deadline) => {
    const b = Buffer.alloc(n);
    let pause = 0;
    for (let off = 0; off < n; ) {
      let k;
      try {
        k = readSync(fd, b, off, n - off, null);
      } catch (e) {
        if (e?.code !== 'EAGAIN') return 'error';
        if (deadline !== undefined && now() > deadline) return 'timeout';
        Atomics.wait(nap, 0, 0, (pause = Math.min(2, pause + 0.02)));
        continue;
      }
      if (k === 0) return 'eof';
      off += k;
      pause = 0;
    }
    return b;
  };
  /** One request and its reply, or { fail } / { timeout } (the process is then killed). */
  const exchange = (msg, deadline) => {
    if (!host) {
      if (starts >= MAX_STARTS) return { fail: `the solution's process was restarted ${MAX_STARTS - 1} times; not again` };
      start();
      const l = load(deadline);
      if (l.fail || l.timeout) return l;
      if (l.reply[0] !== 'ok') {
        kill();
        return { fail: 'the solution failed to load again after its process was restarted' };
      }
    }
    return roundTrip(msg, deadline);
  };
  const roundTrip = (msg, deadline) => {
    const body = bufferFrom(stringify(msg), 'utf8');
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length, 0);
    busy = true;
    const w = writeAll(host.fd, Buffer.concat([head, body]), deadline);
    const lost = (what) => {
      kill();
      return what === 'timeout' ? { timeout: true } : { fail: what };
    };
    if (w !== true) return lost(w === 'timeout' ? 'timeout' : ENDED);
    const h = readAll(host.fd, 4, deadline);
    if (!Buffer.isBuffer(h)) return lost(h === 'timeout' ? 'timeout' : ENDED);
    const n = h.readUInt32BE(0);
    if (n > MAX_REPLY) return lost(`the solution's reply is over ${MAX_REPLY} bytes`);
    const b = readAll(host.fd, n, deadline);
    if (!Buffer.isBuffer(b)) return lost(b === 'timeout' ? 'timeout' : ENDED);
    busy = false;
    let reply;
    try {
      reply = parse(b.toString('utf8'));
    } catch {
      return lost("the solution's process sent a malformed reply");
    }
    if (!Array.isArray(reply) || typeof reply[0] !== 'string') return lost("the solution's process sent a malformed reply");
    return { reply };
  };

  // ---- the names the tests use that the solution defines ----
  const params = new Set(['require', 'module', 'exports', 'assert', 'console', 'arguments', 'undefined', 'this']);
  const testNames = (...texts) => {
    const names = new Set();
    for (const t of texts) {
      if (typeof t !== 'string') continue;
      for (const m of t.matchAll(/(?<![\w$.])[A-Za-z_$][\w$]*/g)) {
        const n = m[0];
        // the tests' builtins stay the tests' own: a solution cannot redefine them for the tests
        if (!params.has(n) && !(n in globalThis) && names.size < 5000) names.add(n);
      }
    }
    return [...names];
  };
  const tests = spec.tests;
  const names = spec.mode === 'function' ? [] : testNames(spec.setup, ...(Array.isArray(tests) ? tests : [tests]));
  const entry = spec.mode === 'function' ? spec.entry_point : null;
  const load = (deadline) => roundTrip(['load', spec.solution, spec.mode === 'function' ? spec.setup || null : null, entry], deadline);

  const ERRORS = { __proto__: null, Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };
  const remoteError = (r) => {
    const name = codec.text(r[1]);
    const message = codec.text(r[2]);
    const C = ERRORS[name] ?? Error;
    const e = new C(message);
    if (!(name in ERRORS)) defineProperty(e, 'name', { value: name, writable: true, configurable: true, enumerable: false });
    const stack = codec.text(r[3]) || `${name}: ${message}`;
    defineProperty(e, 'stack', { value: stack, writable: true, configurable: true, enumerable: false });
    // described by its own stack (node would put the line of the tests that rethrew it first)
    ownStacks.set(e, stack);
    return e;
  };
  const per = spec.per_test_s ? Math.max(1, Math.round(spec.per_test_s * 1000)) : undefined;
  let deadline;
  /** Calls the solution's function `path` in its process: its value, or its error thrown here. */
  const call = (path, args) => {
    if (trouble) throw new Error(trouble.fail ?? 'the solution timed out earlier in this test');
    let enc;
    try {
      enc = codec.encode(args);
    } catch (e) {
      throw new TypeError(`the arguments cannot be sent to the solution: ${e?.message}`);
    }
    const r = exchange(['call', path, enc], deadline);
    if (r.fail || r.timeout) {
      trouble = r;
      throw new Error(r.fail ?? `timeout: the solution did not answer within ${per} ms`);
    }
    const rep = r.reply;
    let v;
    try {
      if (rep[0] === 'ret') return codec.decode(rep[1]);
      if (rep[0] === 'err') v = remoteError(rep);
      else if (rep[0] === 'throw') v = codec.decode(rep[1]);
      else if (rep[0] === 'big') trouble = { fail: `the solution returned a value that cannot be sent: ${codec.text(rep[1])}` };
      else trouble = { fail: "the solution's process sent a malformed reply" };
    } catch (e) {
      trouble = { fail: `the solution's reply cannot be read: ${e?.message}` };
    }
    if (trouble) {
      kill();
      throw new Error(trouble.fail);
    }
    throw v;
  };
  const standIn = (path, length) => {
    const f = (...args) => call(path, args);
    defineProperty(f, 'name', { value: path });
    defineProperty(f, 'length', { value: length });
    return f;
  };

  // the tests get their own require and a frozen assert
  const assertModule = require('node:assert');
  freeze(assertModule);
  freeze(assertModule.strict);
  // HumanEval-X's JavaScript tests check with console.assert, which only logs a failure (its own
  // harness counts any stderr as a failure): here a failed console.assert throws an AssertionError
  const AssertionError = assertModule.AssertionError;
  const format = require('node:util').format;
  const realConsole = console;
  const testConsole = { __proto__: null };
  for (const k of Object.keys(realConsole)) {
    const f = realConsole[k];
    if (typeof f === 'function') testConsole[k] = f.bind(realConsole);
  }
  const consoleAssert = (value, ...message) => {
    if (value) return;
    const e = new AssertionError({
      message: message.length ? apply(format, undefined, message) : 'console.assert failed',
      actual: value,
      expected: true,
      operator: '==',
    });
    Error.captureStackTrace(e, consoleAssert);
    ownStacks.set(e, e.stack);
    throw e;
  };
  testConsole.assert = consoleAssert;
  freeze(testConsole);
  defineProperty(globalThis, '__arbiter_t', {
    value: freeze({ __proto__: null, require, module, exports, assert: assertModule, console: testConsole }),
    writable: false,
    configurable: false,
    enumerable: false,
  });
  const wrap = (code) =>
    '(function (require, module, exports, assert, console) { return function () {\n' +
    code +
    '\n}; })(__arbiter_t.require, __arbiter_t.module, __arbiter_t.exports, __arbiter_t.assert, __arbiter_t.console)();';
  const opts = (filename, timed) => (per && timed ? { __proto__: null, filename, timeout: per } : { __proto__: null, filename });
  const isTimeout = (e) => e !== null && typeof e === 'object' && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
  globalThis.require = require;
  globalThis.module = module;
  globalThis.exports = exports;

  // ---- load ----
  if (filter && !(helper && fs.existsSync(helper)))
    fatal(`the seccomp helper that puts the no-process-creation filter on the solution's process is missing (${helper ?? 'no path given'})`);
  start();
  const l = load();
  if (l.fail) {
    emit('exit', stringify(`the solution's process ended while loading the solution (${l.fail})`));
    finish(1);
  }
  if (l.timeout || l.reply[0] !== 'ok') {
    let e;
    try {
      e = l.reply[0] === 'err' ? remoteError(l.reply) : l.reply[0] === 'throw' ? codec.decode(l.reply[1]) : 'the solution failed to load';
    } catch {
      e = 'the solution failed to load';
    }
    emit('load', describe(e));
    finish(1);
  }
  for (const d of Array.isArray(l.reply[1]) ? l.reply[1] : []) {
    // only names the tests use and do not have themselves
    if (!Array.isArray(d) || typeof d[0] !== 'string' || !names.includes(d[0])) continue;
    let value;
    if (d[1] === 'f') value = standIn(d[0], typeof d[2] === 'number' ? d[2] : 0);
    else {
      // a value the tests use: asked for now (the solution learns only that the tests use one of its names)
      const g = roundTrip(['get', d[0]]);
      if (g.reply?.[0] !== 'ret') continue;
      try {
        value = codec.decode(g.reply[1]);
      } catch {
        continue;
      }
    }
    defineProperty(globalThis, d[0], { value, writable: true, configurable: true, enumerable: false });
  }
  try {
    if (spec.mode !== 'function' && spec.setup) runInThisContext(spec.setup, opts('setup.js', false));
  } catch (e) {
    emit('load', describe(e));
    finish(1);
  }

  const NO_JSON = freeze({ __proto__: null });
  /** Runs one test's code (or call): its verdict. */
  const verdict = (i, body) => {
    trouble = undefined;
    deadline = per ? now() + per + 250 : undefined;
    let error;
    let failed = false;
    let ret;
    try {
      ret = body();
    } catch (e) {
      failed = true;
      error = e;
    }
    // a call cut off by the vm timeout: the solution's process is still at it
    if (busy) {
      kill();
      if (!trouble) trouble = { timeout: true };
    }
    if (trouble?.timeout || (failed && isTimeout(error))) return emit('' + i, 'timeout');
    // humaneval: the solution's process ending is an early exit, as it was when it ended the tests' own
    if (trouble?.fail === ENDED && spec.mode === 'humaneval') return emit('exit', stringify(ENDED));
    if (trouble) return emit('' + i, 'fail', stringify(trouble.fail));
    if (failed) return emit('' + i, 'fail', error === NO_JSON ? stringify('returned a value with no JSON form') : describe(error));
    return ret === undefined ? emit('' + i, 'pass') : emit('' + i, 'ret', ret);
  };

  if (spec.mode === 'humaneval') {
    let ok = true;
    verdict(0, () => {
      try {
        runInThisContext(wrap(tests), opts('tests.js', false));
      } catch (e) {
        ok = false;
        throw e;
      }
    });
    if (!ok || trouble) finish(1);
  } else if (spec.mode === 'asserts') {
    for (let i = 0; i < tests.length; i++) verdict(i, () => void runInThisContext(wrap(tests[i]), opts('test_' + i + '.js', true)));
  } else if (spec.mode === 'function') {
    if (l.reply[2] !== 'function') {
      emit('load', stringify('no function named ' + stringify(spec.entry_point) + ' is defined'));
      finish(1);
    }
    const cases = spec.cases;
    for (let i = 0; i < cases.length; i++) {
      verdict(i, () => {
        const r = call(spec.entry_point, cases[i].args || []);
        let j;
        try {
          j = stringify(r === undefined ? null : r);
        } catch {
          j = undefined;
        }
        if (typeof j !== 'string') throw NO_JSON;
        return j;
      });
    }
  }
  kill();
  emit('done');
  finish(0);
})();
