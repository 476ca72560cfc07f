// arbiter's JavaScript (node) driver (runs in the sandbox as main.js, a CommonJS script; the
// protocol is described in ../harness.ts). Reads the nonce line and the spec (JSON) from stdin
// before any solution code runs, loads the solution, runs the tests of the spec's mode (humaneval,
// asserts, function) and writes one `<nonce> <verdict...>` line per test, then `<nonce> done`.
const __arbiter = (() => {
  'use strict';
  const fs = require('node:fs');
  const vm = require('node:vm');
  const writeSync = fs.writeSync;
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
  const reallyExit = typeof process.reallyExit === 'function' ? process.reallyExit.bind(process) : process.exit.bind(process);
  const input = readFileSync(0, 'utf8');
  const nl = input.indexOf('\n');
  const nonce = input.slice(0, nl).trim();
  const spec = parse(input.slice(nl + 1));
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
  // the tests get their own require and a frozen assert (the solution cannot replace either)
  const assertModule = require('node:assert');
  freeze(assertModule);
  freeze(assertModule.strict);
  // HumanEval-X's JavaScript tests check with console.assert, which only logs a failure (its own
  // harness counts any stderr as a failure): the tests' console is the real one, bound before the
  // solution loads, except that a failed console.assert throws an AssertionError
  const AssertionError = assertModule.AssertionError;
  const format = require('node:util').format;
  const realConsole = console;
  const testConsole = { __proto__: null };
  for (const k of Object.keys(realConsole)) {
    const f = realConsole[k];
    if (typeof f === 'function') testConsole[k] = f.bind(realConsole);
  }
  // the stack of such an error as it was made (node later puts the throwing line, in this driver, first)
  const ownStacks = new WeakMap();
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
  const call = { __proto__: null, fn: undefined, args: undefined };
  defineProperty(globalThis, '__arbiter_c', { value: call, writable: false, configurable: false, enumerable: false });
  const wrap = (code) =>
    '(function (require, module, exports, assert, console) { return function () {\n' +
    code +
    '\n}; })(__arbiter_t.require, __arbiter_t.module, __arbiter_t.exports, __arbiter_t.assert, __arbiter_t.console)();';
  const per = spec.per_test_s ? Math.max(1, Math.round(spec.per_test_s * 1000)) : undefined;
  const opts = (filename, timed) => (per && timed ? { __proto__: null, filename, timeout: per } : { __proto__: null, filename });
  const isTimeout = (e) => e !== null && typeof e === 'object' && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
  globalThis.require = require;
  globalThis.module = module;
  globalThis.exports = exports;
  const src = readFileSync(spec.solution, 'utf8');
  try {
    runInThisContext(src, opts(spec.solution, false));
    if (spec.setup) runInThisContext(spec.setup, opts('setup.js', false));
  } catch (e) {
    emit('load', describe(e));
    reallyExit(1);
  }
  const tests = spec.tests;
  if (spec.mode === 'humaneval') {
    try {
      runInThisContext(wrap(tests), opts('tests.js', false));
      emit('0', 'pass');
    } catch (e) {
      emit('0', 'fail', describe(e));
      reallyExit(1);
    }
  } else if (spec.mode === 'asserts') {
    for (let i = 0; i < tests.length; i++) {
      let code;
      try {
        code = wrap(tests[i]);
        runInThisContext(code, opts('test_' + i + '.js', true));
        emit('' + i, 'pass');
      } catch (e) {
        if (isTimeout(e)) emit('' + i, 'timeout');
        else emit('' + i, 'fail', describe(e));
      }
    }
  } else if (spec.mode === 'function') {
    let fn;
    try {
      fn = runInThisContext(spec.entry_point, opts('entry.js', false));
    } catch {
      fn = undefined;
    }
    if (typeof fn !== 'function') {
      emit('load', stringify('no function named ' + stringify(spec.entry_point) + ' is defined'));
      reallyExit(1);
    }
    const cases = spec.cases;
    for (let i = 0; i < cases.length; i++) {
      call.fn = fn;
      call.args = cases[i].args || [];
      let r;
      try {
        r = runInThisContext('__arbiter_c.fn(...__arbiter_c.args)', opts('call_' + i + '.js', true));
      } catch (e) {
        if (isTimeout(e)) emit('' + i, 'timeout');
        else emit('' + i, 'fail', describe(e));
        continue;
      }
      let j;
      try {
        j = stringify(r === undefined ? null : r);
      } catch {
        j = undefined;
      }
      if (typeof j !== 'string') emit('' + i, 'fail', stringify('returned a value with no JSON form'));
      else emit('' + i, 'ret', j);
    }
  }
  emit('done');
  reallyExit(0);
})();
