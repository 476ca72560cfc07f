// Driver programs that run a solution inside the sandbox and report per-test verdicts on stdout
// as lines `<nonce> <verdict...>`. The nonce and the spec (tests included) arrive on stdin, which
// the driver reads to the end before any solution code runs: they are in no file, argument or
// environment variable the solution could read. Each driver binds everything it uses later
// (builtins, write and exit functions, the JSON encoder) before loading the solution, writes its
// lines from those bindings only, and ends the process itself once the last test has run, so a
// solution that exits early, prints look-alike lines, rebinds builtins or prototypes, or installs
// exit hooks cannot pass tests it did not pass. The tests run apart from the solution: in Python
// in their own namespace with the builtins (and every module they import) as they were before
// the solution ran; in JavaScript with their own `require` and a frozen `assert`. A solution that
// deliberately introspects the driver (frames, memory) could still forge verdicts: this is a
// guard against reward hacks, not a security boundary (the sandbox is).
import { randomBytes } from 'node:crypto';

export function makeNonce(): string {
  return 'ARB' + randomBytes(12).toString('hex');
}

/** What a driver reads from stdin: the nonce line, then the spec as JSON. */
export function driverInput(nonce: string, spec: Record<string, unknown>): string {
  return nonce + '\n' + JSON.stringify(spec);
}

/** Names a Python test text calls as plain functions (`f(`, not `x.f(`), in order of first use. */
export function pythonCalls(...texts: string[]): string[] {
  const out = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(/(?<![\w.])([A-Za-z_]\w*)\s*\(/g)) out.add(m[1]!);
  return [...out];
}

/** Module names a Python test text imports (`import a.b, c` and `from x import y`). */
export function pythonImports(...texts: string[]): string[] {
  const out = new Set<string>();
  for (const t of texts) {
    for (const m of t.matchAll(/^[ \t]*(?:import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)|from[ \t]+([\w.]+)[ \t]+import\b)/gm)) {
      for (const n of (m[1] ?? m[2] ?? '').split(',')) if (n.trim() && !n.trim().startsWith('.')) out.add(n.trim());
    }
  }
  return [...out];
}

/**
 * Python driver. Modes: `humaneval` (load the solution, then the test code in its own namespace,
 * then `check(entry_point)`), `asserts` (load solution + setup, exec each assert with its own
 * alarm), `function` (call entry_point per case and report the JSON of the return value), `grade`
 * (the `python` grader: grade(sample, item)).
 */
export const PYTHON_DRIVER = String.raw`
def _arbiter_driver():
    # Only built-in modules are imported up front (json, traceback and signal cost tens of ms of
    # start-up). Everything used after the solution has loaded is bound here first.
    import sys, os, builtins
    _str, _repr, _type, _isinstance, _callable, _len, _float, _dict, _list = str, repr, type, isinstance, callable, len, float, dict, list
    _exec, _compile, _enumerate, _BaseException, _SystemExit, _import = exec, compile, enumerate, BaseException, SystemExit, __import__
    _write, _read, _exit = os.write, os.read, os._exit
    _modules, _settrace, _setprofile = sys.modules, sys.settrace, sys.setprofile
    _flush_out, _flush_err = sys.stdout.flush, sys.stderr.flush
    _missing = object()
    chunks = []
    while True:
        b = _read(0, 1 << 16)
        if not b:
            break
        chunks.append(b)
    data = b''.join(chunks).decode('utf-8', 'replace')
    nl = data.find('\n')
    nonce = data[:nl].strip()
    text = data[nl + 1:]
    del data, chunks
    try:
        spec = eval(text, {'__builtins__': {}, 'true': True, 'false': False, 'null': None})
    except Exception:  # e.g. nesting too deep for the parser
        import json
        spec = json.loads(text)
    del text

    def out(line):
        for f in (_flush_out, _flush_err):
            try:
                f()
            except _BaseException:
                pass
        b = line.encode('utf-8', 'replace')
        while b:
            n = _write(1, b)
            b = b[n:]

    def emit(*parts):
        out('\n' + nonce + ' ' + ' '.join(parts) + '\n')

    def jstr(s):
        try:
            s = _str(s)
        except _BaseException:
            s = '(unprintable)'
        s = s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n').replace('\t', '\\t').replace('\r', '\\r')
        return '"' + ''.join([c if c >= ' ' else ' ' for c in s]) + '"'

    def describe(e, limit=400):
        try:
            where = ''
            tb = e.__traceback__
            while tb is not None:
                fn = tb.tb_frame.f_code.co_filename
                if fn != __file__:
                    where = ' (%s line %s)' % (fn, tb.tb_lineno)
                tb = tb.tb_next
            name = _type(e).__name__
            msg = _str(e)
            return ((name + ': ' + msg) if msg else name) + where
        except _BaseException:
            return 'an exception that cannot be described'

    class _ArbiterTimeout(BaseException):
        pass

    mode = spec['mode']
    per = spec.get('per_test_s') or 0
    if per:
        try:
            import _signal as sig
        except ImportError:
            import signal as sig
        _setitimer, _signal_fn, _SIGALRM, _ITIMER_REAL = sig.setitimer, sig.signal, sig.SIGALRM, sig.ITIMER_REAL

        def on_alarm(signum, frame):
            raise _ArbiterTimeout()

    if mode == 'function':
        import json
        _dumps = json.dumps
    if mode == 'grade':
        import numbers
        _Real = numbers.Real
    for name in spec.get('imports', ()):
        # modules the tests import, loaded before the solution so that they are restored below
        try:
            _import(name)
        except _BaseException:
            pass
    entries = _dict(_modules)
    saved = [(m, _dict(m.__dict__)) for m in entries.values() if _isinstance(getattr(m, '__dict__', None), _dict)]
    pristine = _dict(builtins.__dict__)

    def restore():
        # undo what the solution rebound in modules that existed before it (builtins included)
        for name, m in entries.items():
            if _modules.get(name, _missing) is not m:
                _modules[name] = m
        for m, d in saved:
            md = m.__dict__
            for k, v in d.items():
                if md.get(k, _missing) is not v:
                    md[k] = v
        _settrace(None)
        _setprofile(None)

    def test_namespace(ns, keep):
        # the solution's names, minus any that shadow a builtin: unless it is the entry point, or
        # the one name of the solution the tests call (MBPP 126 asks for a function named sum)
        if keep is None:
            mine = [k for k in spec.get('called') or () if k in ns]
            if _len(mine) == 1:
                keep = mine[0]
        t = {k: v for k, v in ns.items() if k not in pristine or k == keep}
        t['__builtins__'] = builtins
        t['__name__'] = ns.get('__name__', '__main__')
        return t

    def timed(fn):
        if per:
            _signal_fn(_SIGALRM, on_alarm)
            _setitimer(_ITIMER_REAL, per)
        try:
            return fn()
        finally:
            if per:
                _setitimer(_ITIMER_REAL, 0)

    ns = {'__name__': '__main__' if mode == 'humaneval' else 'solution', '__builtins__': builtins}
    f = open(spec['solution'], encoding='utf-8')
    src = f.read()
    f.close()
    try:
        _exec(_compile(src, spec['solution'], 'exec'), ns)
    except _SystemExit as e:
        emit('exit', jstr('SystemExit(%s) while loading the solution' % _repr(e.code)))
        _exit(1)
    except _BaseException as e:
        emit('load' if mode != 'grade' else 'error', jstr(describe(e)))
        _exit(1)
    if mode == 'grade':
        fn = ns.get('grade')
        if not _callable(fn):
            emit('error', jstr('the source defines no function grade(sample, item)'))
            _exit(1)
        try:
            r = fn(spec['sample'], spec['item'])
        except _BaseException:
            import traceback
            emit('error', jstr(traceback.format_exc()[-1500:]))
            _exit(1)
        if _isinstance(r, bool) or not _isinstance(r, _Real):
            emit('error', jstr('grade() returned %s (%s), not a number' % (_repr(r)[:100], _type(r).__name__)))
            _exit(1)
        try:
            v = _float(r)
        except _BaseException as e:
            emit('error', jstr('grade() returned a value that is not a float: ' + describe(e)))
            _exit(1)
        emit('score', _float.__repr__(v))
        emit('done')
        _exit(0)
    restore()
    entry = spec.get('entry_point')
    tns = test_namespace(ns, entry)
    if mode == 'humaneval':
        if not _callable(ns.get(entry)):
            emit('load', jstr('no function named %s is defined' % _repr(entry)))
            _exit(1)
        try:
            _exec(_compile(spec['tests'], 'tests.py', 'exec'), tns)
            check = tns.get('check')
            if not _callable(check):
                raise NameError('the tests define no function check(candidate)')
            check(ns[entry])
            emit('0', 'pass')
        except _SystemExit as e:
            emit('exit', jstr('SystemExit(%s) during the tests' % _repr(e.code)))
            _exit(1)
        except _BaseException as e:
            emit('0', 'fail', jstr(describe(e)))
            _exit(1)
        emit('done')
        _exit(0)
    if spec.get('setup'):
        try:
            _exec(_compile(spec['setup'], 'setup.py', 'exec'), tns)
        except _BaseException as e:
            emit('load', jstr('the setup code failed: ' + describe(e)))
            _exit(1)
    if mode == 'asserts':
        tests = spec['tests']
        for i in range(_len(tests)):
            restore()
            try:
                code = _compile(tests[i], 'test_%d' % i, 'exec')
                timed(lambda: _exec(code, tns))
                emit(_str(i), 'pass')
            except _ArbiterTimeout:
                emit(_str(i), 'timeout')
            except _BaseException as e:
                emit(_str(i), 'fail', jstr(describe(e)))
    elif mode == 'function':

        def conv(x):
            if _isinstance(x, (set, frozenset)):
                try:
                    return sorted(x)
                except TypeError:
                    return _list(x)
            if hasattr(x, 'tolist'):
                return x.tolist()
            raise TypeError('not JSON-serialisable: %s' % _type(x).__name__)

        fn = ns.get(entry)
        if not _callable(fn):
            emit('load', jstr('no function named %s is defined' % _repr(entry)))
            _exit(1)
        cases = spec['cases']
        for i in range(_len(cases)):
            restore()
            c = cases[i]
            try:
                r = timed(lambda: fn(*c.get('args', []), **c.get('kwargs', {})))
            except _ArbiterTimeout:
                emit(_str(i), 'timeout')
                continue
            except _BaseException as e:
                emit(_str(i), 'fail', jstr(describe(e)))
                continue
            try:
                j = _dumps(r, default=conv, allow_nan=False)
                if not _isinstance(j, _str):
                    raise TypeError('the JSON encoder returned no text')
                emit(_str(i), 'ret', j.replace('\n', ' '))
            except _BaseException as e:
                emit(_str(i), 'fail', jstr('returned a value with no JSON form (%s)' % describe(e)))
    emit('done')
    _exit(0)

try:
    _arbiter_driver()
except BaseException as e:
    import os
    os.write(2, ('arbiter driver error: %r\n' % (e,)).encode('utf-8', 'replace'))
    os._exit(70)
`;

/** JavaScript (node) driver with the same modes (except `grade`); per-test limits use vm timeouts. */
export const JS_DRIVER = String.raw`
const __arbiter = (() => {
  'use strict';
  const fs = require('fs');
  const vm = require('vm');
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
        if (!e || e.code !== 'EAGAIN') throw e;
      }
    }
  };
  const emit = (a, b, c) => out('\n' + nonce + ' ' + a + (b === undefined ? '' : ' ' + b) + (c === undefined ? '' : ' ' + c) + '\n');
  const describe = (e) => {
    let s;
    try {
      s = e !== null && (typeof e === 'object' || typeof e === 'function') && 'stack' in e ? e.stack : e;
      if (typeof s !== 'string') s = '' + s;
      s = apply(arrJoin, apply(arrSlice, apply(strSplit, s, ['\n']), [0, 3]), [' | ']);
      if (typeof s !== 'string') s = 'error';
      s = apply(strSlice, s, [0, 400]);
    } catch (err) {
      s = 'an exception that cannot be described';
    }
    const j = stringify(s);
    return typeof j === 'string' ? j : '"error"';
  };
  // the tests get their own require and a frozen assert (the solution cannot replace either)
  const assertModule = require('assert');
  freeze(assertModule);
  freeze(assertModule.strict);
  defineProperty(globalThis, '__arbiter_t', { value: freeze({ __proto__: null, require, module, exports, assert: assertModule }), writable: false, configurable: false, enumerable: false });
  const call = { __proto__: null, fn: undefined, args: undefined };
  defineProperty(globalThis, '__arbiter_c', { value: call, writable: false, configurable: false, enumerable: false });
  const wrap = (code) => '(function (require, module, exports, assert) { return function () {\n' + code + '\n}; })(__arbiter_t.require, __arbiter_t.module, __arbiter_t.exports, __arbiter_t.assert)();';
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
    } catch (e) {
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
      } catch (e) {
        j = undefined;
      }
      if (typeof j !== 'string') emit('' + i, 'fail', stringify('returned a value with no JSON form'));
      else emit('' + i, 'ret', j);
    }
  }
  emit('done');
  reallyExit(0);
})();
`;

export interface Verdicts {
  done: boolean;
  load?: string;
  /** The solution raised SystemExit (Python) while loading or during the tests. */
  exit?: string;
  tests: Map<number, { verdict: 'pass' | 'fail' | 'timeout' | 'ret'; detail?: string }>;
  error?: string;
  score?: string;
}

/** Parses the driver's verdict lines out of stdout (other output is ignored). */
export function parseVerdicts(stdout: string, nonce: string): Verdicts {
  const v: Verdicts = { done: false, tests: new Map() };
  const prefix = nonce + ' ';
  for (const line of stdout.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const rest = line.slice(prefix.length);
    const sp = rest.indexOf(' ');
    const head = sp < 0 ? rest : rest.slice(0, sp);
    const tail = sp < 0 ? '' : rest.slice(sp + 1);
    if (head === 'done') v.done = true;
    else if (head === 'load') v.load = parseJsonText(tail);
    else if (head === 'exit') v.exit = parseJsonText(tail);
    else if (head === 'error') v.error = parseJsonText(tail);
    else if (head === 'score') v.score = tail;
    else if (/^\d+$/.test(head)) {
      const sp2 = tail.indexOf(' ');
      const verdict = (sp2 < 0 ? tail : tail.slice(0, sp2)) as 'pass' | 'fail' | 'timeout' | 'ret';
      const detail = sp2 < 0 ? undefined : tail.slice(sp2 + 1);
      const i = Number(head);
      if (!v.tests.has(i)) v.tests.set(i, detail === undefined ? { verdict } : { verdict, detail: verdict === 'ret' ? detail : parseJsonText(detail) });
    }
  }
  return v;
}

function parseJsonText(s: string): string {
  try {
    const x: unknown = JSON.parse(s);
    return typeof x === 'string' ? x : JSON.stringify(x);
  } catch {
    return s;
  }
}
