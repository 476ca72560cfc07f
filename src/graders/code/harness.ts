// Driver programs that run a solution inside the sandbox and report per-test verdicts on stdout
// as lines `<nonce> <verdict...>`. The nonce arrives on stdin, never in a file or the
// environment, so a solution that exits early or prints look-alike lines cannot pass tests it
// did not run. (Deliberate introspection of the driver's frames could still forge verdicts: this
// is a guard against accidents and cheap hacks, not a security boundary; the sandbox is.)
import { randomBytes } from 'node:crypto';

export function makeNonce(): string {
  return 'ARB' + randomBytes(12).toString('hex');
}

/**
 * Python driver. Modes: `program` (run solution.py as __main__, then report `done`), `asserts`
 * (load solution + setup, exec each assert with its own alarm), `function` (call entry_point per
 * case and report the JSON of the return value), `grade` (the `python` grader: grade(sample, item)).
 */
export const PYTHON_DRIVER = String.raw`
def _arbiter_driver():
    # Only built-in modules are imported up front (json, traceback and signal cost tens of ms of
    # start-up); the spec is JSON read as a Python literal with true/false/null bound.
    import sys, os
    nonce = sys.stdin.readline().strip()
    with open('spec.json', encoding='utf-8') as f:
        text = f.read()
    try:
        spec = eval(text, {'__builtins__': {}, 'true': True, 'false': False, 'null': None})
    except Exception:  # e.g. nesting too deep for the parser
        import json
        spec = json.loads(text)
    out = sys.stdout
    write = out.write
    flush = out.flush

    def jstr(s):
        s = str(s).replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n').replace('\t', '\\t').replace('\r', '\\r')
        return '"' + ''.join(c if c >= ' ' else ' ' for c in s) + '"'

    def emit(*parts):
        try:
            flush()
        except BaseException:
            pass
        write('\n' + nonce + ' ' + ' '.join(parts) + '\n')
        flush()

    def describe(e, limit=400):
        where = ''
        tb = e.__traceback__
        while tb is not None:
            fn = tb.tb_frame.f_code.co_filename
            if fn != __file__:
                where = ' (%s line %s)' % (fn, tb.tb_lineno)
            tb = tb.tb_next
        msg = ('%s: %s' % (type(e).__name__, e)) if str(e) else type(e).__name__
        return (msg + where)[:limit]

    class _ArbiterTimeout(BaseException):
        pass

    mode = spec['mode']
    ns = {'__name__': '__main__' if mode == 'program' else 'solution', '__builtins__': __builtins__}
    with open(spec['solution'], encoding='utf-8') as f:
        src = f.read()
    if mode == 'program':
        exec(compile(src, spec['solution'], 'exec'), ns)
        emit('done')
        os._exit(0)
    try:
        exec(compile(src, spec['solution'], 'exec'), ns)
        if spec.get('setup'):
            exec(compile(spec['setup'], 'setup.py', 'exec'), ns)
    except BaseException as e:
        emit('load', jstr(describe(e)))
        return
    per = spec.get('per_test_s') or 0
    if per:
        try:
            import _signal as sig
        except ImportError:
            import signal as sig

        def on_alarm(signum, frame):
            raise _ArbiterTimeout()

        sig.signal(sig.SIGALRM, on_alarm)

    def timed(fn):
        if per:
            sig.setitimer(sig.ITIMER_REAL, per)
        try:
            return fn()
        finally:
            if per:
                sig.setitimer(sig.ITIMER_REAL, 0)

    if mode == 'asserts':
        for i, t in enumerate(spec['tests']):
            try:
                timed(lambda: exec(compile(t, 'test_%d' % i, 'exec'), ns))
                emit(str(i), 'pass')
            except _ArbiterTimeout:
                emit(str(i), 'timeout')
            except BaseException as e:
                emit(str(i), 'fail', jstr(describe(e)))
    elif mode == 'function':
        import json

        def conv(x):
            if isinstance(x, (set, frozenset)):
                try:
                    return sorted(x)
                except TypeError:
                    return list(x)
            if hasattr(x, 'tolist'):
                return x.tolist()
            raise TypeError('not JSON-serialisable: %s' % type(x).__name__)

        fn = ns.get(spec['entry_point'])
        if not callable(fn):
            emit('load', jstr('no function named %r is defined' % spec['entry_point']))
            return
        for i, c in enumerate(spec['cases']):
            try:
                r = timed(lambda: fn(*c.get('args', []), **c.get('kwargs', {})))
            except _ArbiterTimeout:
                emit(str(i), 'timeout')
                continue
            except BaseException as e:
                emit(str(i), 'fail', jstr(describe(e)))
                continue
            try:
                emit(str(i), 'ret', json.dumps(r, default=conv, allow_nan=False))
            except (TypeError, ValueError) as e:
                emit(str(i), 'fail', jstr('returned %s, which has no JSON form (%s)' % (repr(r)[:100], e)))
    elif mode == 'grade':
        fn = ns.get('grade')
        if not callable(fn):
            emit('error', jstr('the source defines no function grade(sample, item)'))
            return
        try:
            r = fn(spec['sample'], spec['item'])
        except BaseException:
            import traceback
            emit('error', jstr(traceback.format_exc()[-1500:]))
            return
        import numbers
        if isinstance(r, bool) or not isinstance(r, numbers.Real):
            emit('error', jstr('grade() returned %s (%s), not a number' % (repr(r)[:100], type(r).__name__)))
            return
        emit('score', repr(float(r)))
    emit('done')
    flush()
    os._exit(0)

_arbiter_driver()
`;

/** JavaScript (node) driver with the same modes (except `grade`); per-test limits use vm timeouts. */
export const JS_DRIVER = String.raw`
const __arbiter = (() => {
  const fs = require('fs');
  const vm = require('vm');
  const writeSync = fs.writeSync;
  const nonce = fs.readFileSync(0, 'utf8').split('\n')[0].trim();
  const spec = JSON.parse(fs.readFileSync('spec.json', 'utf8'));
  const emit = (...parts) => writeSync(1, '\n' + nonce + ' ' + parts.join(' ') + '\n');
  const describe = (e) => {
    const s = e && e.stack ? String(e.stack).split('\n').slice(0, 3).join(' | ') : String(e);
    return s.slice(0, 400);
  };
  globalThis.require = require;
  globalThis.module = module;
  globalThis.exports = exports;
  const src = fs.readFileSync(spec.solution, 'utf8');
  const per = spec.per_test_s ? Math.max(1, Math.round(spec.per_test_s * 1000)) : undefined;
  const opts = (filename) => (per ? { filename, timeout: per } : { filename });
  const isTimeout = (e) => e && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
  if (spec.mode === 'program') {
    vm.runInThisContext(src, { filename: spec.solution });
    emit('done');
    process.exit(0);
  }
  try {
    vm.runInThisContext(src, { filename: spec.solution });
    if (spec.setup) vm.runInThisContext(spec.setup, { filename: 'setup.js' });
  } catch (e) {
    emit('load', JSON.stringify(describe(e)));
    process.exit(0);
  }
  if (spec.mode === 'asserts') {
    spec.tests.forEach((t, i) => {
      try {
        vm.runInThisContext(t, opts('test_' + i + '.js'));
        emit(String(i), 'pass');
      } catch (e) {
        if (isTimeout(e)) emit(String(i), 'timeout');
        else emit(String(i), 'fail', JSON.stringify(describe(e)));
      }
    });
  } else if (spec.mode === 'function') {
    let fn;
    try {
      fn = vm.runInThisContext(spec.entry_point, { filename: 'entry.js' });
    } catch (e) {
      fn = undefined;
    }
    if (typeof fn !== 'function') {
      emit('load', JSON.stringify('no function named ' + JSON.stringify(spec.entry_point) + ' is defined'));
      process.exit(0);
    }
    globalThis.__arbiter_fn = fn;
    spec.cases.forEach((c, i) => {
      globalThis.__arbiter_args = c.args || [];
      let r;
      try {
        r = vm.runInThisContext('__arbiter_fn(...__arbiter_args)', opts('call_' + i + '.js'));
      } catch (e) {
        if (isTimeout(e)) emit(String(i), 'timeout');
        else emit(String(i), 'fail', JSON.stringify(describe(e)));
        return;
      }
      let j;
      try {
        j = JSON.stringify(r === undefined ? null : r);
      } catch (e) {
        j = undefined;
      }
      if (j === undefined) emit(String(i), 'fail', JSON.stringify('returned a value with no JSON form'));
      else emit(String(i), 'ret', j);
    });
  }
  emit('done');
  process.exit(0);
})();
`;

export interface Verdicts {
  done: boolean;
  load?: string;
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
