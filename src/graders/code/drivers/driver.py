# arbiter's Python driver (runs in the sandbox as main.py; the protocol is described in ../harness.ts).
# Two processes. The harness H (this process) reads the nonce and the spec (JSON) from stdin, runs
# the tests of the spec's mode (humaneval, asserts, function) and writes one `<nonce> <verdict...>`
# line per test, then `<nonce> done`. The solution runs in S, a child H forks as its very first
# action, before stdin is read, so S's memory never holds the nonce or the tests. S keeps only two
# pipes to H (stdin, stdout and stderr on /dev/null), stacks the spec's no-process-creation seccomp
# filter on itself, loads the solution and serves calls. In H the solution's functions are proxies:
# arguments and results cross the pipes as plain values only (None, bool, int, float, complex, str,
# bytes, bytearray, list, tuple, dict, set, frozenset), read through the base types' own methods and
# rebuilt in H as exactly those types; anything else arrives as an opaque handle that equals only
# itself. H is non-dumpable, so S cannot open /proc/<H>/mem or /proc/<H>/fd. `grade` mode (the
# `python` grader: arbiter's operator's code, not a solution) runs in H itself. Standard library only.


def _arbiter_driver():
    # a warm run finds here the modules below as the zygote imported them, and a copy of the
    # builtins' namespace from before any program ran (zygote.py: _ready_modules): importing them
    # in a forked process would cost hundreds of copy-on-write page faults; a cold run imports
    ready = globals().pop('__arbiter_modules__', None)
    if type(ready) is not dict:
        ready = {}
    import sys, os, builtins

    def ready_module(name):
        m = ready.get(name)
        return m if type(m) is type(sys) else __import__(name)

    ctypes, json, binascii, gc = ready_module('ctypes'), ready_module('json'), ready_module('binascii'), ready_module('gc')

    _str, _repr, _type, _isinstance, _callable, _len, _float, _int, _list = str, repr, type, isinstance, callable, len, float, int, list
    _tuple, _dict, _set, _frozenset, _bytes, _bytearray, _complex, _issubclass = tuple, dict, set, frozenset, bytes, bytearray, complex, issubclass
    _exec, _compile, _BaseException, _SystemExit, _import, _id, _getattr = exec, compile, BaseException, SystemExit, __import__, id, getattr
    _write, _read, _exit, _close, _kill, _waitpid = os.write, os.read, os._exit, os.close, os.kill, os.waitpid
    _dumps, _loads = json.dumps, json.loads
    _module_type = _type(sys)
    _real = _complex.__dict__['real'].__get__
    _imag = _complex.__dict__['imag'].__get__
    _exc_args = _BaseException.__dict__['args'].__get__
    _mro = _type.__dict__['__mro__'].__get__
    me = __file__
    MAX_FRAME = 16 << 20  # bytes of one message over a pipe
    MAX_DEPTH = 100  # nesting of one value
    SMALL = 1 << 53  # ints up to this cross as JSON numbers, larger ones as hex text

    # prctl(int, unsigned long x4) with errno kept, and struct sock_fprog: the zygote's (a warm
    # run), else made here
    prctl, _Fprog = ready.get('__prctl__'), ready.get('__fprog__')
    if prctl is None or _Fprog is None:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
        prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]

        class _Fprog(ctypes.Structure):
            _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]

    # the zygote's copy of the spawn filter, as (its bytes, the address of its ready struct
    # sock_fprog) (a warm run; zygote.py: _ready_modules)
    prepared = ready.get('__spawn_filter__')
    if not (_type(prepared) is _tuple and _len(prepared) == 2 and _type(prepared[0]) is _bytes and _type(prepared[1]) is _int):
        prepared = None

    def install_spawn_filter(raw):
        # stacks the no-process-creation filter (BPF bytes) on this process (no_new_privs is set
        # by the sandbox); the reason it failed, or None. The zygote's ready struct when it holds
        # these very bytes (building one in a forked process costs about 50 page faults)
        if prepared is not None and prepared[0] == raw:
            addr = prepared[1]
        else:
            buf = ctypes.create_string_buffer(raw, _len(raw))
            prog = _Fprog(_len(raw) // 8, ctypes.cast(buf, ctypes.c_void_p))
            addr = ctypes.addressof(prog)
        if prctl(22, 2, addr, 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
            return 'the spawn filter could not be installed: ' + os.strerror(ctypes.get_errno())
        return None

    def fatal(what):
        # a failure of the sandbox or of the driver itself (never a verdict): stderr and exit 71
        _write(2, ('arbiter driver: sandbox: %s\n' % what).encode('utf-8', 'replace'))
        _exit(71)

    # ---- messages: 4-byte big-endian length, then JSON text ---------------------------------

    def send(fd, msg):
        b = _dumps(msg, separators=(',', ':')).encode('utf-8', 'surrogatepass')
        b = _len(b).to_bytes(4, 'big') + b
        view = memoryview(b)
        while view:
            view = view[_write(fd, view) :]

    def read_exact(fd, n):
        parts = []
        while n > 0:
            b = _read(fd, n if n < 1 << 20 else 1 << 20)
            if not b:
                return None
            parts.append(b)
            n -= _len(b)
        return b''.join(parts)

    class _BadMessage(Exception):
        pass

    def receive(fd):
        """The next message, None at end of file; _BadMessage when it is no message."""
        h = read_exact(fd, 4)
        if h is None:
            return None
        n = _int.from_bytes(h, 'big')
        if n > MAX_FRAME:
            raise _BadMessage('a reply of %d bytes (over the bound of %d)' % (n, MAX_FRAME))
        b = read_exact(fd, n)
        if b is None:
            return None
        try:
            return _loads(b.decode('utf-8', 'surrogatepass'))
        except _BaseException as e:
            raise _BadMessage('an unreadable reply (%s)' % _type(e).__name__) from None

    # ---- plain values as JSON trees -----------------------------------------------------------
    # JSON null/true/false/numbers/strings are None/bool/int/float/str and arrays are lists; an
    # object with one key is a tagged value: {"t": [..]} tuple, {"s": [..]} set, {"fs": [..]}
    # frozenset, {"d": [[k, v], ..]} dict, {"b": hex} bytes, {"ba": hex} bytearray, {"c": [re,
    # im]} complex, {"i": hex} a large int, {"o": [handle, type name]} an object of the solution's
    # process, {"r": handle} that object again (from H), {"bi": name} a builtin such as `int` (from
    # H: MBPP 533 passes a type). Subclasses are read through the base type.

    class _TooDeep(Exception):
        pass

    def encoder(other):
        """enc(x): the tree of x; other(x) is the tree of a value of no plain type."""

        def enc(x, depth=0):
            if depth > MAX_DEPTH:
                raise _TooDeep('a value nested more than %d levels deep' % MAX_DEPTH)
            t = _type(x)
            if t is _str or x is None or x is True or x is False or t is _float:
                return x
            if t is _int:
                return x if -SMALL < x < SMALL else {'i': _int.__format__(x, 'x')}
            d = depth + 1
            if t is _list:
                return [enc(e, d) for e in x]
            if t is _tuple:
                return {'t': [enc(e, d) for e in x]}
            if t is _dict:
                return {'d': [[enc(k, d), enc(v, d)] for k, v in x.items()]}
            if t is _set:
                return {'s': [enc(e, d) for e in x]}
            if t is _frozenset:
                return {'fs': [enc(e, d) for e in x]}
            if t is _bytes:
                return {'b': x.hex()}
            if t is _bytearray:
                return {'ba': x.hex()}
            if t is _complex:
                return {'c': [x.real, x.imag]}
            try:
                # a subclass: its value as the base type reads it, never through its own methods
                if _issubclass(t, _int):
                    return enc(_int.__index__(x), depth)
                if _issubclass(t, _str):
                    return _str.__str__(x)
                if _issubclass(t, _float):
                    return _float.__float__(x)
                if _issubclass(t, _tuple):
                    return {'t': [enc(e, d) for e in _tuple.__iter__(x)]}
                if _issubclass(t, _list):
                    return [enc(e, d) for e in _list.__iter__(x)]
                if _issubclass(t, _dict):
                    return {'d': [[enc(k, d), enc(v, d)] for k, v in _dict.items(x)]}
                if _issubclass(t, _frozenset):
                    return {'fs': [enc(e, d) for e in _frozenset.__iter__(x)]}
                if _issubclass(t, _set):
                    return {'s': [enc(e, d) for e in _set.__iter__(x)]}
                if _issubclass(t, _bytes):
                    return {'b': _bytes.hex(x)}
                if _issubclass(t, _bytearray):
                    return {'ba': _bytearray.hex(x)}
                if _issubclass(t, _complex):
                    return {'c': [_real(x), _imag(x)]}
            except _TooDeep:
                raise
            except _BaseException:
                pass
            return other(x)

        return enc

    def decoder(handle):
        """dec(tree): the value of a tree, built from builtin types only (handle(tag, v) for
        "o"/"r"); _BadMessage for anything else. Runs no code of the values it builds."""

        def dec(t, depth=0):
            if depth > MAX_DEPTH:
                raise _BadMessage('a value nested more than %d levels deep' % MAX_DEPTH)
            k = _type(t)
            if t is None or k is _str or k is _int or k is _float or k is bool:
                return t
            d = depth + 1
            if k is _list:
                return [dec(e, d) for e in t]
            if k is _dict and _len(t) == 1:
                for tag, v in t.items():
                    kv = _type(v)
                    try:
                        if tag == 't' and kv is _list:
                            return _tuple([dec(e, d) for e in v])
                        if tag == 'd' and kv is _list:
                            out = {}
                            for p in v:
                                if _type(p) is not _list or _len(p) != 2:
                                    break
                                out[dec(p[0], d)] = dec(p[1], d)
                            else:
                                return out
                        if tag == 's' and kv is _list:
                            return _set([dec(e, d) for e in v])
                        if tag == 'fs' and kv is _list:
                            return _frozenset([dec(e, d) for e in v])
                        if tag == 'i' and kv is _str and _len(v) < MAX_FRAME:
                            return _int(v, 16)
                        if tag == 'b' and kv is _str:
                            return _bytes.fromhex(v)
                        if tag == 'ba' and kv is _str:
                            return _bytearray.fromhex(v)
                        if tag == 'c' and kv is _list and _len(v) == 2 and _type(v[0]) is _float and _type(v[1]) is _float:
                            return _complex(v[0], v[1])
                        if tag in ('o', 'r', 'bi'):
                            return handle(tag, v)
                    except _BadMessage:
                        raise
                    except (TypeError, ValueError) as e:  # e.g. an unhashable set element
                        raise _BadMessage('an unreadable value (%s)' % e) from None
            raise _BadMessage('an unreadable value')

        return dec

    def where_of(e):
        where = ''
        try:
            tb = e.__traceback__
            while tb is not None:
                fn = tb.tb_frame.f_code.co_filename
                if fn != me:
                    where = ' (%s line %s)' % (fn, tb.tb_lineno)
                tb = tb.tb_next
        except _BaseException:
            pass
        return where

    # ---- S: the solution's process --------------------------------------------------------------

    def solution_host(rfd, wfd):
        nul = os.open('/dev/null', os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(nul, fd)
        lo, hi = (rfd, wfd) if rfd < wfd else (wfd, rfd)
        os.closerange(3, lo)
        os.closerange(lo + 1, hi)
        os.closerange(hi + 1, 1 << 20)
        objects = {}  # handle -> an object of this process that H holds a handle to
        handles = {}  # id(object) -> handle

        def opaque(x):
            h = handles.get(_id(x))
            if h is None or objects[h] is not x:
                h = _len(objects) + 1
                objects[h] = x
                handles[_id(x)] = h
            try:
                name = _type(x).__name__
                name = name if _type(name) is _str else '?'
            except _BaseException:
                name = '?'
            return {'o': [h, name]}

        enc = encoder(opaque)
        tolist = [False]

        def enc_result(x):
            if tolist[0] and _type(x) not in (_list, _tuple, _dict, _set, _frozenset, _str, _int, _float, bool, _bytes):
                try:
                    x = x.tolist()  # (function mode: a numpy array's value, as before the split)
                except _BaseException:
                    pass
            return enc(x)

        pristine = ready.get('__builtins__')
        if type(pristine) is not _dict:
            pristine = _dict(builtins.__dict__)

        def local(tag, v):
            if tag == 'r' and _type(v) is _int and v in objects:
                return objects[v]
            if tag == 'bi' and _type(v) is _str and v in pristine:
                return pristine[v]
            raise _BadMessage('no such object')

        dec = decoder(local)

        class _Timeout(BaseException):
            pass

        try:
            import _signal as sig
        except ImportError:
            import signal as sig
        _setitimer, _ITIMER_REAL = sig.setitimer, sig.ITIMER_REAL

        def on_alarm(signum, frame):
            raise _Timeout()

        sig.signal(sig.SIGALRM, on_alarm)

        def exc_reply(e):
            if _isinstance(e, _Timeout):
                return ['timeout']
            try:
                base = 'Exception'
                for c in _mro(_type(e)):
                    if _getattr(builtins, c.__name__, None) is c:
                        base = c.__name__
                        break
                name = _type(e).__name__
                try:
                    msg = _str(e)
                except _BaseException:
                    msg = '(unprintable)'
                try:
                    args = enc(_exc_args(e))
                except _BaseException:
                    args = None
                return ['exc', base, name, args, msg[:2000], where_of(e)]
            except _BaseException:
                return ['exc', 'Exception', '?', None, 'an exception that cannot be described', '']

        def reply(msg):
            try:
                send(wfd, msg)
            except _TooDeep as e:
                send(wfd, ['bad', _str(e)])

        def timed(fn, limit):
            if limit:
                _setitimer(_ITIMER_REAL, limit)
            try:
                return fn()
            finally:
                if limit:
                    _setitimer(_ITIMER_REAL, 0)

        ns = None
        while True:
            try:
                m = receive(rfd)
            except _BadMessage:
                m = None
            if m is None:
                _exit(0)
            op = m[0]
            if op == 'load':
                spec = m[1]
                ns = {'__name__': spec['name'], '__builtins__': builtins}
                tolist[0] = spec.get('tolist', False)
                filt = spec.get('filter')
                why = install_spawn_filter(_bytes.fromhex(filt)) if filt else None
                if why:
                    send(wfd, ['sandbox', why])
                    _exit(71)
                try:
                    f = open(spec['solution'], encoding='utf-8')
                    src = f.read()
                    f.close()
                    _exec(_compile(src, spec['solution'], 'exec'), ns)
                except _SystemExit as e:
                    reply(['exit', 'SystemExit(%s) while loading the solution' % _repr(e.code)])
                    _exit(1)
                except _BaseException as e:
                    try:
                        reply(['load', '%s%s%s' % (_type(e).__name__, (': ' + _str(e)) if _str(e) else '', where_of(e))])
                    except _BaseException:
                        reply(['load', 'an exception that cannot be described'])
                    _exit(1)
                names, modules = [], {}
                for k, v in _list(ns.items()):
                    if _type(k) is not _str or k.startswith('__'):
                        continue
                    if _type(v) is _module_type:
                        mn = v.__dict__.get('__name__')
                        if _type(mn) is _str:
                            modules[k] = mn
                    elif _callable(v):
                        names.append(k)
                reply(['loaded', names, modules])
                continue
            try:
                if op == 'call':
                    _, target, args, kwargs, limit = m
                    fn = ns.get(target) if _type(target) is _str else local('r', target)
                    a = [dec(x) for x in args]
                    kw = {k: dec(v) for k, v in kwargs}
                    r = timed(lambda: fn(*a, **kw), limit)
                    # arguments the call changed in place go back, for H to update its own
                    changed = []
                    for i in range(_len(a)):
                        if _type(a[i]) in (_list, _dict, _set, _bytearray):
                            t = enc(a[i])
                            if t != args[i]:
                                changed.append([i, t])
                    for k, v in kwargs:
                        if _type(kw[k]) in (_list, _dict, _set, _bytearray):
                            t = enc(kw[k])
                            if t != v:
                                changed.append([k, t])
                    reply(['ok', enc_result(r), changed])
                elif op == 'getattr':
                    reply(['ok', enc(_getattr(local('r', m[1]), m[2])), []])
                elif op == 'setattr':
                    setattr(local('r', m[1]), m[2], dec(m[3]))
                    reply(['ok', None, []])
                elif op == 'iter':
                    reply(['ok', opaque(iter(local('r', m[1]))), []])
                elif op == 'next':
                    reply(['ok', enc(timed(lambda: next(local('r', m[1])), m[2])), []])
                else:
                    reply(['bad', 'unknown request'])
            except _TooDeep as e:
                reply(['bad', _str(e)])
            except _BaseException as e:
                reply(exc_reply(e))

    def kill_now(pid):
        try:
            _kill(pid, 9)
            _waitpid(pid, 0)
        except _BaseException:
            pass

    call_r, call_w = os.pipe()
    reply_r, reply_w = os.pipe()
    # every object so far goes to the collector's permanent generation: collections in S (and in
    # H) never walk them, which in a forked process would write to a copy-on-write page per object
    gc.freeze()
    spid = os.fork()
    if spid == 0:
        try:
            _close(call_w)
            _close(reply_r)
            solution_host(call_r, reply_w)
        finally:
            _exit(70)
    _close(call_r)
    _close(reply_w)
    # H is no longer dumpable: /proc/<H>/mem, fd, environ, maps belong to root from now on (S,
    # forked just before, stays dumpable, so it can still read its own /proc files)
    if prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE 0
        kill_now(spid)
        fatal('prctl(PR_SET_DUMPABLE) failed: %s' % os.strerror(ctypes.get_errno()))

    # ---- H: the harness -----------------------------------------------------------------------

    chunks = []
    while True:
        b = _read(0, 1 << 16)
        if not b:
            break
        chunks.append(b)
    data = b''.join(chunks).decode('utf-8', 'replace')
    nl = data.find('\n')
    nonce = data[:nl].strip()
    text = data[nl + 1 :]
    del data, chunks
    spec = _loads(text)
    del text

    def out(line):
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

    def describe(e):
        try:
            where = _getattr(e, '_arbiter_where', None)
            if _type(where) is not _str:
                where = where_of(e)
            name = _getattr(e, '_arbiter_type', None) or _type(e).__name__
            msg = _str(e)
            return ((name + ': ' + msg) if msg else name) + where
        except _BaseException:
            return 'an exception that cannot be described'

    def finish(code):
        try:
            _kill(spid, 9)
            _waitpid(spid, 0)
        except _BaseException:
            pass
        _exit(code)

    mode = spec['mode']
    if mode == 'grade':
        finish_grade(spec, emit, jstr, describe, finish, install_spawn_filter, ready_module)

    class _ArbiterTimeout(BaseException):
        pass

    class _SolutionGone(Exception):
        pass

    class SolutionException(Exception):
        """An exception of the solution's whose type is not a builtin one."""

    import time

    _monotonic = time.monotonic
    per = spec.get('per_test_s') or 0
    margin = 0.5 + per * 0.1
    if per:
        try:
            import _signal as sig
        except ImportError:
            import signal as sig
        _setitimer, _ITIMER_REAL = sig.setitimer, sig.ITIMER_REAL

        def on_alarm(signum, frame):
            raise _ArbiterTimeout()

        sig.signal(sig.SIGALRM, on_alarm)

    state = {'alive': True, 'why': '', 'deadline': None, 'ended': False}
    remotes = {}  # handle -> _Remote

    def kill_solution(why):
        if state['alive']:
            state['alive'] = False
            state['why'] = why
            try:
                _kill(spid, 9)
                _waitpid(spid, 0)
            except _BaseException:
                pass

    def exchange(msg):
        """Sends a request to S and returns its reply; S is killed when the exchange breaks off."""
        if not state['alive']:
            raise _SolutionGone(state['why'])
        done = False
        try:
            send(call_w, msg)
            r = receive(reply_r)
            done = True
        except _BadMessage as e:
            kill_solution("the solution's process sent %s" % e)
            raise _SolutionGone(state['why']) from None
        except OSError:
            r = None
            done = True
        finally:
            if not done:  # (H's own timer, mid-exchange: S is in an unknown state)
                kill_solution("the solution's process was stopped after a test ran out of time")
        if r is None:
            kill_solution("the solution's process ended during the tests (an exit or a crash in the solution)")
            state['ended'] = True
            raise _SolutionGone(state['why'])
        if _type(r) is not _list or not r or _type(r[0]) is not _str:
            kill_solution("the solution's process sent an unreadable reply")
            raise _SolutionGone(state['why'])
        return r

    class _Remote:
        """An object of the solution's process: equal only to itself, its attributes, calls and
        iteration forwarded to S (whose results cross as plain values or further handles)."""

        __slots__ = ('_h', '_t', '__weakref__')

        def __init__(self, h, t):
            object.__setattr__(self, '_h', h)
            object.__setattr__(self, '_t', t)

        def __eq__(self, other):
            return self is other

        def __ne__(self, other):
            return self is not other

        __hash__ = object.__hash__

        def __repr__(self):
            return '<%s object of the solution>' % self._t

        def __getattr__(self, name):
            if name.startswith('__'):
                raise AttributeError(name)
            return result(exchange(['getattr', self._h, name]))

        def __setattr__(self, name, value):
            result(exchange(['setattr', self._h, name, h_enc(value)]))

        def __call__(self, *args, **kwargs):
            return call(self._h, args, kwargs)

        def __iter__(self):
            return _RemoteIter(result(exchange(['iter', self._h])))

    class _RemoteIter:
        __slots__ = ('_it',)

        def __init__(self, it):
            self._it = it

        def __iter__(self):
            return self

        def __next__(self):
            it = self._it
            if _type(it) is not _Remote:
                raise TypeError('not an iterator')
            return result(exchange(['next', it._h, left()]))

    def remote_handle(tag, v):
        if tag != 'o' or _type(v) is not _list or _len(v) != 2 or _type(v[0]) is not _int or _type(v[1]) is not _str:
            raise _BadMessage('an unreadable handle')
        r = remotes.get(v[0])
        if r is None:
            r = remotes[v[0]] = _Remote(v[0], v[1][:100])
        return r

    h_dec = decoder(remote_handle)

    def h_other(x):
        if _type(x) is _Remote:
            return {'r': x._h}
        name = _getattr(x, '__name__', None)
        if _type(name) is _str and builtins.__dict__.get(name) is x:
            return {'bi': name}
        raise TypeError('a value of type %s cannot be passed to the solution (only plain values cross)' % _type(x).__name__)

    h_enc = encoder(h_other)

    def left():
        d = state['deadline']
        if d is None:
            return 0
        return max(0.001, d - _monotonic())

    def result(r):
        """The value of S's reply, or its exception raised here."""
        kind = r[0]
        try:
            if kind == 'ok' and _len(r) == 3:
                return h_dec(r[1])
            if kind == 'timeout':
                raise _ArbiterTimeout()
            if kind == 'exc' and _len(r) == 6:
                _, base, name, args, msg, where = r
                cls = _getattr(builtins, base, None) if _type(base) is _str else None
                if not (_isinstance(cls, _type) and _issubclass(cls, _BaseException)):
                    cls = SolutionException
                e = None
                if cls is not SolutionException and args is not None:
                    try:
                        a = h_dec(args)
                        if _type(a) is _tuple:
                            e = cls(*a)
                    except _BaseException:
                        e = None
                if e is None:
                    try:
                        e = cls(_str(msg))
                    except _BaseException:
                        e = SolutionException(_str(msg))
                try:
                    e._arbiter_where = _str(where)
                    e._arbiter_type = _str(name)
                except _BaseException:
                    pass
                raise e
            if kind == 'bad' and _len(r) == 2:
                raise ValueError("the solution's value cannot cross to the tests: %s" % _str(r[1]))
        except _BadMessage as e:
            raise ValueError("the solution's process sent %s" % e) from None
        kill_solution("the solution's process sent an unreadable reply")
        raise _SolutionGone(state['why'])

    def call(target, args, kwargs):
        try:
            ea = [h_enc(a) for a in args]
            ek = [[k, h_enc(v)] for k, v in kwargs.items()]
        except _TooDeep as e:
            raise ValueError(_str(e)) from None
        r = exchange(['call', target, ea, ek, left()])
        if r[0] == 'ok' and _len(r) == 3 and _type(r[2]) is _list and r[2]:
            update(args, kwargs, r[2])
        return result(r)

    def update(args, kwargs, changed):
        # arguments the solution changed in place: the same change to H's objects
        for c in changed:
            try:
                k, t = c
                x = args[k] if _type(k) is _int else kwargs[k]
                v = h_dec(t)
                tx = _type(x)
                if tx is not _type(v):
                    continue
                if tx is _list or tx is _bytearray:
                    x[:] = v
                elif tx is _dict or tx is _set:
                    x.clear()
                    x.update(v)
            except _BaseException:
                continue

    def proxy(name):
        def solution_function(*args, **kwargs):
            return call(name, args, kwargs)

        solution_function.__name__ = solution_function.__qualname__ = name
        return solution_function

    entry = spec.get('entry_point')
    filt = spec.get('spawn_filter')
    if filt:
        filt = binascii.a2b_base64(filt).hex()
    try:
        send(call_w, ['load', {'solution': spec['solution'], 'name': '__main__' if mode == 'humaneval' else 'solution', 'filter': filt or None, 'tolist': mode == 'function'}])
    except OSError:
        pass
    for name in spec.get('imports', ()):
        # modules the tests import, loaded now (while the solution loads)
        try:
            _import(name)
        except _BaseException:
            pass
    tns = {'__builtins__': builtins, '__name__': '__main__' if mode == 'humaneval' else 'solution'}
    own = set()
    if mode == 'humaneval' and spec.get('prompt'):
        # the prompt (trusted, from the data set) defines the helpers the tests may call, e.g.
        # HumanEval/32's poly: the tests get these, not the solution's versions
        try:
            _exec(_compile(spec['prompt'], 'prompt.py', 'exec'), tns)
        except _BaseException:
            pass
        own = {k for k in tns if k != entry}
    try:
        loaded = receive(reply_r)
    except _BadMessage:
        loaded = None
    if _type(loaded) is _list and loaded and loaded[0] == 'sandbox':
        fatal(_str(loaded[1:]))
    if _type(loaded) is _list and _len(loaded) == 2 and loaded[0] in ('load', 'exit') and _type(loaded[1]) is _str:
        emit(loaded[0], jstr(loaded[1]))
        finish(1)
    if _type(loaded) is not _list or _len(loaded) != 3 or loaded[0] != 'loaded' or _type(loaded[1]) is not _list or _type(loaded[2]) is not _dict:
        emit('load', jstr("the solution's process ended while loading the solution (an exit or a crash)"))
        finish(1)
    names = [n for n in loaded[1] if _type(n) is _str]
    if entry is not None and mode != 'asserts' and entry not in names:
        emit('load', jstr('no function named %s is defined' % _repr(entry)))
        finish(1)
    # the solution's names, minus any that shadow a builtin: unless it is the entry point, or the
    # one name of the solution the tests call (MBPP 126 asks for a function named sum)
    keep = entry
    if keep is None:
        mine = [k for k in spec.get('called') or () if k in names]
        if _len(mine) == 1:
            keep = mine[0]
    stdlib = _getattr(sys, 'stdlib_module_names', ())
    for k, mn in loaded[2].items():
        # a module the solution imported (the tests may use it): H's own copy of the standard one
        if _type(mn) is _str and mn.split('.')[0] in stdlib and k not in tns and not _hasbuiltin(k):
            try:
                _import(mn)
                tns[k] = sys.modules[mn]
            except _BaseException:
                pass
    for k in names:
        if k == entry or (k not in own and (not _hasbuiltin(k) or k == keep)):
            tns[k] = proxy(k)

    def run_test(fn):
        state['deadline'] = _monotonic() + per if per else None
        if per:
            _setitimer(_ITIMER_REAL, per + margin)
        try:
            return fn()
        finally:
            if per:
                _setitimer(_ITIMER_REAL, 0)
            state['deadline'] = None

    def gone(i, e):
        # S ended by itself (an exit or a crash): an early exit, this test and the rest; S stopped
        # by H (a test out of time): this test fails, and so does each later one, with the reason
        if state['ended']:
            emit('exit', jstr(_str(e)))
            finish(1)
        emit(_str(i), 'fail', jstr(_str(e)))

    if mode == 'humaneval':
        try:
            _exec(_compile(spec['tests'], 'tests.py', 'exec'), tns)
            check = tns.get('check')
            if not _callable(check):
                raise NameError('the tests define no function check(candidate)')
            check(tns[entry])
            emit('0', 'pass')
        except _SystemExit as e:
            emit('exit', jstr('SystemExit(%s) during the tests' % _repr(e.code)))
            finish(1)
        except _SolutionGone as e:
            emit('exit', jstr(_str(e)))
            finish(1)
        except _BaseException as e:
            emit('0', 'fail', jstr(describe(e)))
            finish(1)
        emit('done')
        finish(0)
    if spec.get('setup'):
        try:
            _exec(_compile(spec['setup'], 'setup.py', 'exec'), tns)
        except _BaseException as e:
            emit('load', jstr('the setup code failed: ' + describe(e)))
            finish(1)
    if mode == 'asserts':
        tests = spec['tests']
        for i in range(_len(tests)):
            try:
                code = _compile(tests[i], 'test_%d' % i, 'exec')
                run_test(lambda: _exec(code, tns))
                emit(_str(i), 'pass')
            except _ArbiterTimeout:
                emit(_str(i), 'timeout')
            except _SolutionGone as e:
                gone(i, e)
            except _BaseException as e:
                emit(_str(i), 'fail', jstr(describe(e)))
    elif mode == 'function':
        if hasattr(sys, 'set_int_max_str_digits'):
            sys.set_int_max_str_digits(0)  # the JSON of a big int, exactly

        def conv(x):
            if _isinstance(x, (set, frozenset)):
                try:
                    return sorted(x)
                except TypeError:
                    return _list(x)
            raise TypeError('not JSON-serialisable: %s' % (x._t if _type(x) is _Remote else _type(x).__name__))

        fn = tns[entry]
        cases = spec['cases']
        for i in range(_len(cases)):
            c = cases[i]
            try:
                r = run_test(lambda: fn(*c.get('args', []), **c.get('kwargs', {})))
            except _ArbiterTimeout:
                emit(_str(i), 'timeout')
                continue
            except _SolutionGone as e:
                gone(i, e)
                continue
            except _BaseException as e:
                emit(_str(i), 'fail', jstr(describe(e)))
                continue
            try:
                j = _dumps(r, default=conv, allow_nan=False)
                emit(_str(i), 'ret', j.replace('\n', ' '))
            except _BaseException as e:
                emit(_str(i), 'fail', jstr('returned a value with no JSON form (%s)' % describe(e)))
    emit('done')
    finish(0)


def _hasbuiltin(name):
    import builtins

    return name in builtins.__dict__


def finish_grade(spec, emit, jstr, describe, finish, install_spawn_filter, ready_module):
    """The `python` grader's mode: the operator's grade(sample, item), run here (it is trusted)."""
    import builtins

    binascii, numbers, traceback = ready_module('binascii'), ready_module('numbers'), ready_module('traceback')

    # bound before the grader's code runs, which may rebind builtins (float, repr, isinstance...)
    _float, _isinstance, _repr, _type, _callable, _bool = float, isinstance, repr, type, callable, bool
    _BaseException, _SystemExit, _exec, _compile, _open, _len = BaseException, SystemExit, exec, compile, open, len
    _Real, _format_exc, _float_repr = numbers.Real, traceback.format_exc, float.__repr__

    filt = spec.get('spawn_filter')
    # the grader's code runs here, so the no-process filter goes on this process (allow_processes
    # leaves it out of the spec); the solution's process is idle and killed at the end
    why = install_spawn_filter(binascii.a2b_base64(filt)) if filt else None
    if why:
        import os

        os.write(2, ('arbiter driver: sandbox: %s\n' % why).encode())
        finish(71)
    ns = {'__name__': 'solution', '__builtins__': builtins}
    f = _open(spec['solution'], encoding='utf-8')
    src = f.read()
    f.close()
    try:
        _exec(_compile(src, spec['solution'], 'exec'), ns)
    except _SystemExit as e:
        emit('exit', jstr('SystemExit(%s) while loading the solution' % _repr(e.code)))
        finish(1)
    except _BaseException as e:
        emit('error', jstr(describe(e)))
        finish(1)
    fn = ns.get('grade')
    if not _callable(fn):
        emit('error', jstr('the source defines no function grade(sample, item)'))
        finish(1)
    try:
        r = fn(spec['sample'], spec['item'])
    except _BaseException:
        emit('error', jstr(_format_exc()[-1500:]))
        finish(1)
    if _isinstance(r, _bool) or not _isinstance(r, _Real):
        emit('error', jstr('grade() returned %s (%s), not a number' % (_repr(r)[:100], _type(r).__name__)))
        finish(1)
    try:
        v = _float(r)
    except _BaseException as e:
        emit('error', jstr('grade() returned a value that is not a float: ' + describe(e)))
        finish(1)
    emit('score', _float_repr(v))
    emit('done')
    finish(0)


try:
    _arbiter_driver()
except BaseException as e:
    import os

    os.write(2, ('arbiter driver error: %r\n' % (e,)).encode('utf-8', 'replace'))
    os._exit(70)
