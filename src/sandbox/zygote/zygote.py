# arbiter's Python zygote: a warm interpreter inside one sandbox slot (see ../zygote.ts). It is
# started by bubblewrap as root of the sandbox (no seccomp filter, no rlimits) with the same
# interpreter flags as a cold run, warms up the parser and compiler, and then serves runs one at a
# time on two dedicated fds (never on stdin/stdout, which it leaves untouched for the programs).
# It never runs untrusted code itself. Per run it mounts a fresh tmpfs /tmp holding the run's
# files (in the sandbox's private mount namespace) and starts
#   P: pid 1 of a new pid namespace, in a new IPC namespace, with a fresh /proc stacked on the
#     sandbox's; when P exits, the kernel kills and reaps everything left in the namespace
#     (background, setsid and double-forked processes). With native/zygote-fork.c (when built)
#     P is made by the template T, a child forked between runs that never runs Python again (see
#     start_template), shares T's memory until it execs native/zygote-init, and never touches the
#     interpreter; without it the zygote forks P itself;
#   Q (P's child): the program: stdio on socket pairs, the run's environment, cwd /tmp, rlimits,
#     the slot's uid (capabilities cleared; the bounding set was emptied and no_new_privs set
#     once, in the zygote), the same seccomp filter as a cold run (with or without process
#     creation, as the job says: the zygote holds both), every fd above 2 closed; then
#     it runs main.py as `python3 <flags> main.py args` would.
# The zygote feeds stdin, captures output up to the cap and enforces the wall clock itself, then
# unmounts the run's /proc and /tmp, wipes the run's input and output from its memory and reports
# one result frame: nothing of one run is left in the zygote for the next run's fork to inherit
# (with T, no run's data is ever in the memory a program inherits at all).
# Frames: 4-byte big-endian length, 4-byte big-endian header length, a JSON header, raw bytes.
import os
import sys

# The modules a program finds loaded are those of a cold start with the same flags plus these,
# imported here once: standard modules that test programs often import and whose import draws
# no randomness and reads no clock, environment or file a program could change (so a pristine
# copy is exactly what the program's own import would give; not `random`, `tempfile`, `hashlib`).
# Everything the zygote imports for itself is taken out of sys.modules in the program's process.
PRELOAD = ('typing', 'collections', 're', 'math', 'itertools', 'functools', 'operator', 'heapq', 'bisect', 'string', 'copy')
for _m in PRELOAD:
    __import__(_m)
del _m
_KEEP_MODULES = set(sys.modules)
import _socket  # noqa: E402
import json  # noqa: E402
import traceback  # noqa: E402
import ctypes  # noqa: E402
import mmap  # noqa: E402
import resource  # noqa: E402
import select  # noqa: E402
import time  # noqa: E402
import gc as _gc  # noqa: E402
import atexit as _atexit  # noqa: E402
import marshal  # noqa: E402
import binascii  # noqa: E402
import numbers  # noqa: E402

_libc = ctypes.CDLL(None, use_errno=True)
_pyapi = ctypes.pythonapi
for _f in ('PyOS_BeforeFork', 'PyOS_AfterFork_Parent', 'PyOS_AfterFork_Child'):
    getattr(_pyapi, _f).restype = None
    getattr(_pyapi, _f).argtypes = []
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]

CLONE_NEWPID = 0x20000000
CLONE_NEWIPC = 0x08000000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
MS_REC, MS_PRIVATE, MNT_DETACH = 16384, 1 << 18, 2
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 24, 38, 22, 2
RUN_DIR = '/tmp'
RLIMITS = {
    'cpu': 0,  # RLIMIT_CPU
    'fsize': 1,
    'data': 2,
    'core': 4,
    'nproc': 6,
    'nofile': 7,
    'as': 9,
}


class _Fprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]


def _err(what):
    e = ctypes.get_errno()
    return OSError(e, '%s: %s' % (what, os.strerror(e)))


def _mount(src, target, fstype, flags, data=None):
    if _libc.mount(src, target, fstype, flags, data) != 0:
        raise _err('mount %s' % target.decode())


_monotonic = time.monotonic


def _socketpair():
    a, b = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
    return a.detach(), b.detach()


def _read_exact(fd, n):
    parts = []
    while n > 0:
        b = os.read(fd, min(n, 1 << 20))
        if not b:
            return None
        parts.append(b)
        n -= len(b)
    return b''.join(parts)


def _read_frame(fd):
    """(header, blob) with blob a bytearray (which the caller wipes when done), or None at EOF."""
    h = _read_exact(fd, 8)
    if h is None:
        return None
    total, hlen = int.from_bytes(h[:4], 'big'), int.from_bytes(h[4:], 'big')
    if hlen > total - 4:
        return None
    head = _read_exact(fd, hlen)
    if head is None:
        return None
    blob = bytearray(total - 4 - hlen)
    view = memoryview(blob)
    got = 0
    while got < len(blob):
        n = os.readv(fd, [view[got:]])
        if n == 0:
            return None
        got += n
    view.release()
    return json.loads(head), blob


def _wipe(b):
    """Zeroes a bytearray in place, so that a later fork's memory holds nothing of this run."""
    if b:
        ctypes.memset((ctypes.c_char * len(b)).from_buffer(b), 0, len(b))


def _write_all(fd, b):
    v = memoryview(b)
    while v:
        n = os.write(fd, v)
        v = v[n:]


def _frame(header, body_len=None):
    """A frame's head: the whole frame when body_len is None, else to be followed by that many bytes."""
    h = json.dumps(header).encode()
    if body_len is None:
        body_len = header.get('out', 0) + header.get('err', 0)
    return (4 + len(h) + body_len).to_bytes(4, 'big') + len(h).to_bytes(4, 'big') + h


def _prewarm():
    """Does once what every program's first steps would otherwise initialise lazily in each fork
    (the parser and compiler, file opening, exception formatting): copy-on-write makes a fork pay
    milliseconds for such first uses."""
    src = (
        "import sys\nclass A:\n    x: int = 1\n    def f(self, *a, **k):\n        return [i for i in a if i] or {k: v for k, v in k.items()}\n"
        "def g(n):\n    try:\n        assert n, f'{n!r:>3}'\n    except AssertionError as e:\n        return str(e)\n    finally:\n        pass\n"
        "    return lambda y=n: (y, *range(2), {1, 2}, (yield), b'x'.decode())\nr = A().f(1, 0, 2)\n"
    )
    ns = {'__name__': '__prewarm__'}
    exec(compile(src.encode(), '/prewarm.py', 'exec', dont_inherit=True), ns)
    exec(compile(src, '/prewarm.py', 'exec', dont_inherit=True), ns)
    eval('{"a": [1, 2.5, "x", null, true, {"b": false}]}', {'__builtins__': {}, 'true': True, 'false': False, 'null': None})
    try:
        raise ValueError('x')
    except ValueError as e:
        traceback.format_exception(type(e), e, e.__traceback__)
    with open(__file__, 'rb') as f:
        f.read(16)
    with open(__file__, encoding='utf-8') as f:
        f.read(16)
    json.loads(json.dumps({'a': [1, 'b']}))
    '%s %r %d %.3f' % ('a', 'b', 1, 0.5)


class Zygote:
    def __init__(self, ctl_in, ctl_out):
        self.ctl_in, self.ctl_out = ctl_in, ctl_out
        self.cache = {}

    def start(self):
        frame = _read_frame(self.ctl_in)
        if frame is None:
            os._exit(2)
        init, blob = frame
        self.uid = init.get('uid')
        self.native = None
        if init.get('native'):
            # the forks in C (native/zygote-fork.c); a PyDLL keeps the interpreter lock held
            self.native = ctypes.PyDLL(init['native'])
            self.native.zygote_fork_run.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
            self.native.zygote_fork_run.restype = ctypes.c_int
            self.native.zygote_template_serve.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_char_p]
            self.native.zygote_template_serve.restype = ctypes.c_int
        # the template T (native only): (pid, control socket), forked before the next run when None
        self.template = None
        # what each run's pid 1 execs after its fork (native/zygote-init.c), when bound
        self.init_path = init['init'].encode() if self.native is not None and init.get('init') else None
        # two filters: for a program that may create processes (job 'spawn'), and for one that may
        # not (the default); built once, each program installs its one with one prctl
        n_spawn, n_nospawn = init.get('seccomp', 0), init.get('seccomp_nospawn', 0)
        if bool(n_spawn) != bool(n_nospawn):
            raise OSError('both seccomp filters or neither')
        self.filters = []  # (buffer, struct) pairs, kept alive for the zygote's life
        self.fprog_addr = {}
        for spawn, off, n in ((True, 0, n_spawn), (False, n_spawn, n_nospawn)):
            if n:
                self.fprog_addr[spawn] = self.prepare_filter(bytes(blob[off : off + n]))
        # the stackable spawn filter of arbiter's driver (its bytes and its ready struct), for the
        # solution's process to stack with one prctl: building it there costs about 50 page faults
        off, n = n_spawn + n_nospawn, init.get('spawn_filter', 0)
        raw = bytes(blob[off : off + n])
        self.spawn_filter = (raw, self.prepare_filter(raw)) if n and len(raw) == n else None
        fd = init.get('cgroup_fd')
        if fd is not None:
            os.write(fd, b'0\n')  # join the slot's warm cgroup; every fork below stays in it
            os.close(fd)
        os.chdir('/')
        # the environment every fork inherits (a run with the same one leaves it as it is)
        self.environ = dict(os.environ)
        # every run mounts its /tmp (and P its /proc) here and unmounts them afterwards
        _mount(None, b'/', None, MS_REC | MS_PRIVATE)
        self.pidns = os.open('/proc/self/ns/pid', os.O_RDONLY | os.O_CLOEXEC)
        if self.uid is not None:
            # the bounding set is only consulted at execve: empty it here, once, for every program
            for cap in range(64):
                if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:
                    raise _err('dropping capabilities')
        # inherited by every fork, and never cleared: no program can gain privileges by an exec
        if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _err('no_new_privs')
        _prewarm()
        # The zygote's own modules leave sys.modules now (its globals keep them alive), so that a
        # program's process starts with exactly a cold start's modules without undoing anything.
        for name in [m for m in sys.modules if m not in _KEEP_MODULES]:
            del sys.modules[name]
        self.modules = _ready_modules()
        _write_all(self.ctl_out, _frame({'t': 'ready', 'version': sys.version.split()[0]}))

    def prepare_filter(self, raw):
        """A struct sock_fprog for the BPF program raw, kept alive with its buffer; its address."""
        buf = ctypes.create_string_buffer(raw, len(raw))
        prog = _Fprog(len(raw) // 8, ctypes.cast(buf, ctypes.c_void_p))
        self.filters.append((buf, prog))
        return ctypes.addressof(prog)

    def serve(self):
        """Returns only in the program's process (Q), with what it runs."""
        while True:
            if self.native is not None and self.template is None:
                # between runs: nothing of any run is in memory for T (and so Q) to inherit
                q = self.start_template()
                if q is not None:
                    return q  # in Q
            frame = _read_frame(self.ctl_in)
            if frame is None:
                os._exit(0)
            job, blob = frame
            key = job.get('cache')
            compiled = False
            if key and key not in self.cache and job.get('trusted'):
                # arbiter's own driver (never the solution): compiled once, kept for every run
                main = job['files'][job['main']]
                off = sum(f['size'] for f in job['files'][: job['main']])
                if len(self.cache) >= 8:
                    self.cache.clear()
                self.cache[key] = compile(bytes(blob[off : off + main['size']]), RUN_DIR + '/' + main['name'], 'exec', dont_inherit=True)
                compiled = True
            try:
                q = self.run(job, blob)
            except BaseException as e:  # noqa: BLE001
                # the zygote's own failure: say so and end; the pool starts a fresh one
                try:
                    _write_all(self.ctl_out, _frame({'t': 'error', 'message': '%s' % (e,)}))
                finally:
                    os._exit(3)
            if q is not None:
                return q  # in Q
            del job, blob, frame
            if compiled and self.template is not None:
                # T was forked before that code was compiled: the next one has it
                self.stop_template()

    def program_job(self, job):
        """What the program's process needs of its job (the files are in /tmp by then), worked
        out here, so that the program's process (a fork, where every first touch of a page costs
        a copy) does as little as it can: its environment only when it differs from the one
        every fork inherits, and its rlimits as (resource, soft, hard)."""
        env = job['env']
        return {
            'argv': job['argv'],
            'script': job['script'],
            'path': RUN_DIR + '/' + job['files'][job['main']]['name'],
            'env': None if env == self.environ else env,
            'rlimits': [(RLIMITS[name], v[0], v[1]) for name, v in job['limits']['rlimits'].items()],
            'cache': job.get('cache'),
            'trusted': bool(job.get('trusted')),
            'spawn': job.get('spawn') is True,
        }

    def start_template(self):
        """Forks the template T (native/zygote-fork.c), which forks every run's P from a memory
        that no longer changes: the zygote's own bookkeeping then never writes to pages a program
        shares. Returns None here, and what to run in a program's process (Q)."""
        mine, theirs = _socketpair()
        pid = os.fork()
        if pid == 0:
            try:
                for fd in (mine, self.ctl_in, self.ctl_out, self.pidns):
                    os.close(fd)
                _pyapi.PyOS_BeforeFork()
                fds = (ctypes.c_int * 5)()
                if self.native.zygote_template_serve(theirs, fds, self.init_path) != 0:
                    os._exit(0)  # the zygote closed T's socket
                _pyapi.PyOS_AfterFork_Child()
                fds = list(fds)
            except BaseException:  # noqa: BLE001
                os._exit(127)
            # Q: its job arrives on the job pipe (marshal: cheaper to read in a fork than JSON)
            return _start_program(fds[:4], lambda: _read_job(fds[4]))
        os.close(theirs)
        self.template = (pid, _socket.socket(fileno=mine))
        return None

    def stop_template(self):
        pid, sock = self.template
        self.template = None
        sock.close()
        os.kill(pid, 9)
        os.waitpid(pid, 0)

    def spawn_from_template(self, fds):
        """P from T, with Q's fds (and the job pipe's read end); P's pid."""
        pid, sock = self.template
        sock.sendmsg([b'r'], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, b''.join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in fds))])
        answer = _read_exact(sock.fileno(), 4)
        if answer is None:
            raise OSError('the template process ended')
        p = int.from_bytes(answer, sys.byteorder, signed=True)
        if p < 0:
            raise OSError(-p, 'template: clone: ' + os.strerror(-p))
        return p

    def run(self, job, blob):
        """One run: a fresh /tmp with the files, P in a new pid namespace, supervision, cleanup.
        Returns None here, and what to run in the program's process."""
        lim = job['limits']
        _mount(b'tmpfs', b'/tmp', b'tmpfs', MS_NOSUID | MS_NODEV, b'size=%d,mode=1777' % lim['tmp'])
        view = memoryview(blob)
        off = 0
        made = set()
        for f in job['files']:
            parts = f['name'].split('/')
            for k in range(1, len(parts)):
                d = RUN_DIR + '/' + '/'.join(parts[:k])
                if d not in made:
                    os.mkdir(d)
                    os.chmod(d, 0o1777)
                    made.add(d)
            fd = os.open(RUN_DIR + '/' + f['name'], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            _write_all(fd, view[off : off + f['size']])
            os.fchmod(fd, 0o755 if f.get('exec') else 0o644)
            os.close(fd)
            off += f['size']
        stdin = view[off : off + job['stdin']]
        # stdio are stream socket pairs, as those node gives a cold run's bwrap (and so its program)
        in_w, in_r = _socketpair()
        out_r, out_w = _socketpair()
        err_r, err_w = _socketpair()
        ready_r, ready_w = os.pipe()
        t0 = _monotonic()
        if self.template is not None:
            job_r, job_w = os.pipe()
            try:
                pid = self.spawn_from_template((in_r, out_w, err_w, ready_w, job_r))
            finally:
                for fd in (in_r, out_w, err_w, ready_w, job_r):
                    os.close(fd)
            try:
                _write_all(job_w, marshal.dumps(self.program_job(job)))
            except OSError:
                pass  # Q is gone before reading it: its ready pipe says why
            finally:
                os.close(job_w)
            return self.finish(pid, job, blob, view, stdin, (in_w, out_r, err_r, ready_r), t0)
        # the next child (P) is born as pid 1 of a new pid namespace; then back to our own
        if _libc.unshare(CLONE_NEWPID) != 0:
            raise _err('unshare')
        if self.native is not None:
            fds = (in_r, out_w, err_w, ready_w)
            own = (in_w, out_r, err_r, ready_r, self.ctl_in, self.ctl_out, self.pidns)
            _pyapi.PyOS_BeforeFork()
            pid = self.native.zygote_fork_run((ctypes.c_int * 4)(*fds), 4, (ctypes.c_int * len(own))(*own), len(own))
            if pid == 0:
                # Q (P stays in C): what os.fork does in a child, then the program's set-up
                _pyapi.PyOS_AfterFork_Child()
                return _start_program(fds, lambda: Z.program_job(job))
            _pyapi.PyOS_AfterFork_Parent()
            if pid < 0:
                raise OSError(-pid, 'fork: ' + os.strerror(-pid))
        else:
            pid = os.fork()
        if pid == 0:
            try:
                for fd in (in_w, out_r, err_r, ready_r, self.ctl_in, self.ctl_out, self.pidns):
                    os.close(fd)
                stdin.release()
                view.release()
                q = pid1(job, (in_r, out_w, err_w, ready_w))
            except BaseException as e:  # noqa: BLE001
                try:
                    os.write(ready_w, ('error: %s\n' % (e,)).encode())
                finally:
                    os._exit(127)
            return q  # in Q
        if _libc.setns(self.pidns, CLONE_NEWPID) != 0:
            os.kill(pid, 9)
            raise _err('setns')
        for fd in (in_r, out_w, err_w, ready_w):
            os.close(fd)
        return self.finish(pid, job, blob, view, stdin, (in_w, out_r, err_r, ready_r), t0)

    def finish(self, pid, job, blob, view, stdin, fds, t0):
        """Supervises P (a child of the zygote either way), cleans up and reports the result."""
        in_w, out_r, err_r, ready_r = fds
        lim = job['limits']
        try:
            res, out, err = supervise(pid, stdin, in_w, out_r, err_r, ready_r, lim, t0, self.ctl_out)
        finally:
            stdin.release()
            view.release()
            # the namespace is empty now: drop its /proc (stacked by P) and the run's /tmp
            while not os.path.exists('/proc/self'):
                if _libc.umount2(b'/proc', MNT_DETACH) != 0:
                    raise _err('umount /proc')
            if _libc.umount2(b'/tmp', MNT_DETACH) != 0:
                raise _err('umount /tmp')
            _wipe(blob)
        res['t'] = 'result'
        res['out'], res['err'] = len(out), len(err)
        try:
            _write_all(self.ctl_out, _frame(res))
            _write_all(self.ctl_out, out)
            _write_all(self.ctl_out, err)
        finally:
            out.release()
            err.release()
            res = None
            for mm in _OUT_MAPS:
                mm.close()  # unmapped: no later fork holds this run's output
            _OUT_MAPS.clear()
        return None


def pid1(job, fds):
    """P: mounts the namespace's /proc, forks the program and relays its exit status."""
    os.setsid()  # the program's session and group are 1, as under bwrap's --new-session
    # a fresh IPC namespace: SysV semaphores and POSIX queues die with the run, as in a cold run
    if _libc.unshare(CLONE_NEWIPC) != 0:
        raise _err('unshare ipc')
    # (bwrap also binds /proc/sys and friends read-only for user-namespace runs; a program here is
    # an unprivileged uid without capabilities, for which they are read-only anyway)
    _mount(b'proc', b'/proc', b'proc', MS_NOSUID | MS_NODEV | MS_NOEXEC)
    q = os.fork()
    if q == 0:
        return _start_program(fds, lambda: Z.program_job(job))
    for fd in fds:
        os.close(fd)
    nul = os.open('/dev/null', os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(nul, fd)
    os.close(nul)
    while True:
        pid, status = os.wait()
        if pid == q:
            break
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


def _read_job(fd):
    """The program's job from the zygote (marshal, until EOF)."""
    parts = []
    while True:
        b = os.read(fd, 1 << 16)
        if not b:
            break
        parts.append(b)
    os.close(fd)
    return marshal.loads(b''.join(parts))


def _start_program(fds, job):
    """Q: program_setup with job(), or why it failed on the ready pipe (fds[3]) and exit 127."""
    try:
        return program_setup(job(), fds)
    except BaseException as e:  # noqa: BLE001
        try:
            os.write(fds[3], ('error: %s\n' % (e,)).encode())
        finally:
            os._exit(127)


def program_setup(job, fds):
    """Q: becomes the program's process (job: see _program_job); returns what top level runs."""
    # the zygote's objects move to the collector's permanent generation: collections in the
    # program never walk them (each walk writes to a copy-on-write page per object)
    _gc.freeze()
    in_r, out_w, err_w, ready_w = fds
    os.dup2(in_r, 0)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    os.chdir(RUN_DIR)
    env = job['env']
    if env is not None:  # (None: the zygote's own, which this process has)
        os.environ.clear()
        os.environ.update(env)
    for r, soft, hard in job['rlimits']:
        resource.setrlimit(r, (soft, hard))
    uid = Z.uid
    if uid is not None:
        # (the bounding set is already empty and no_new_privs set: see Zygote.start)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # clears every capability
    argv = job['argv']
    path = job['path']
    code = Z.cache.get(job['cache']) if job['cache'] else None
    if Z.fprog_addr:
        # the program may create processes only when its job says so (P, which forked this
        # process, and the zygote keep forking: the filter holds from here on, for Q and its exec)
        if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, Z.fprog_addr[job['spawn']], 0, 0) != 0:
            raise _err('seccomp')
    # every fd above 2 but the ready pipe: close_range (one system call) where the C library has it
    if _close_range is None or _close_range(3, ready_w - 1, 0) != 0 or _close_range(ready_w + 1, 0xFFFFFFFF, 0) != 0:
        for name in os.listdir('/proc/self/fd'):
            fd = int(name)
            if fd > 2 and fd != ready_w:
                try:
                    os.close(fd)
                except OSError:
                    pass  # the listing's own fd
    os.write(ready_w, b'ok\n')
    os.close(ready_w)
    Z.cache.clear()
    return argv, job['script'], path, code, Z.modules if job['trusted'] else None


def _ready_modules():
    """For arbiter's own driver (trusted mains only): the modules it would otherwise import in
    each program's process, as the zygote imported them (json, ctypes, binascii...; an import in
    a fork writes to hundreds of copy-on-write pages: about 570 page faults for these), and a
    copy of the builtins' namespace as it was before any program ran, the zygote's prctl and
    sock_fprog, and the driver's spawn filter ready to stack (below). None of the modules is in
    sys.modules: a program (and the solution's process a driver forks) importing one gets a
    fresh copy, as in a cold run."""
    import builtins

    mods = {m.__name__: m for m in (json, ctypes, binascii, traceback, numbers, _gc)}
    mods['__builtins__'] = dict(builtins.__dict__)
    # the C library's prctl (int, then four unsigned longs; errno kept) and struct sock_fprog: in
    # a fork, loading the library and defining the structure cost about 200 page faults
    mods['__prctl__'] = _libc.prctl
    mods['__fprog__'] = _Fprog
    if Z.spawn_filter is not None:
        # the spawn filter's bytes and the address of its struct sock_fprog (Zygote.start)
        mods['__spawn_filter__'] = Z.spawn_filter
    return mods


_OUT_MAPS = []
_close_range = getattr(_libc, 'close_range', None)
if _close_range is not None:
    _close_range.argtypes = [ctypes.c_uint, ctypes.c_uint, ctypes.c_int]


def supervise(pid, stdin, in_w, out_r, err_r, ready_r, lim, t0, ctl_out):
    """Feeds stdin, captures stdout and stderr up to the cap (into anonymous maps, unmapped after
    the report), kills P at the wall-clock or output limit, and waits for it."""
    cap, wall = lim['output'], lim['wall_ms'] / 1000.0
    maps = {out_r: mmap.mmap(-1, max(1, cap)), err_r: mmap.mmap(-1, max(1, cap))}
    _OUT_MAPS.extend(maps.values())
    views = {fd: memoryview(mm) for fd, mm in maps.items()}
    sizes = {out_r: 0, err_r: 0}
    scratch = bytearray(4096)
    ready = []
    timed_out = over = False
    pidfd = os.pidfd_open(pid)
    poll = select.poll()
    for fd in (out_r, err_r, ready_r):
        poll.register(fd, select.POLLIN)
    poll.register(pidfd, select.POLLIN)
    sent = 0
    if len(stdin):
        os.set_blocking(in_w, False)
        poll.register(in_w, select.POLLOUT)
    else:
        os.close(in_w)
        in_w = -1
    open_fds = {out_r, err_r, ready_r}
    exited = False
    status = usage = None
    try:
        while open_fds or not exited:
            left = t0 + wall - _monotonic()
            if left <= 0 and not exited and not timed_out:
                timed_out = True
                os.kill(pid, 9)
            for fd, _ev in poll.poll(max(0, left) * 1000 if not timed_out and not exited else 1000):
                if fd == pidfd:
                    poll.unregister(pidfd)
                    _, status, usage = os.wait4(pid, 0)
                    exited = True
                elif fd == in_w:
                    try:
                        sent += os.write(in_w, stdin[sent : sent + 65536])
                    except OSError:
                        sent = len(stdin)  # the program closed its stdin: not an error
                    if sent >= len(stdin):
                        poll.unregister(in_w)
                        os.close(in_w)
                        in_w = -1
                elif fd == ready_r:
                    b = os.read(fd, 4096)
                    if b:
                        if not ready and b.startswith(b'ok'):
                            # the program runs from now on: arbiter may no longer rerun it elsewhere
                            _write_all(ctl_out, _frame({'t': 'started'}))
                        ready.append(b)
                    else:
                        poll.unregister(fd)
                        open_fds.discard(fd)
                else:
                    room = cap - sizes[fd]
                    if room > 0:
                        n = os.readv(fd, [views[fd][sizes[fd] : sizes[fd] + min(room, 1 << 16)]])
                        sizes[fd] += n
                    else:
                        n = os.readv(fd, [scratch])
                        if n and not over and not exited:
                            over = True
                            os.kill(pid, 9)
                    if n == 0:
                        poll.unregister(fd)
                        open_fds.discard(fd)
    finally:
        if not exited:
            os.kill(pid, 9)
            _, status, usage = os.wait4(pid, 0)
        for fd in (out_r, err_r, ready_r, pidfd, in_w):
            if fd >= 0:
                os.close(fd)
        _wipe(scratch)
    ms = (_monotonic() - t0) * 1000.0
    code = os.waitstatus_to_exitcode(status)
    return (
        {
            # CPU time of the run's processes (diagnostics)
            'cpu_ms': (usage.ru_utime + usage.ru_stime) * 1000.0,
            'code': code if code >= 0 else None,
            'signal': -code if code < 0 else None,
            'timed_out': timed_out,
            'output_limit': over and not timed_out,
            'ms': ms,
            'ready': b''.join(ready).decode('utf-8', 'replace')[:2000],
        },
        views[out_r][: sizes[out_r]],
        views[err_r][: sizes[err_r]],
    )


def _exit_status(code):
    """The exit status the interpreter gives SystemExit(code) (printing a non-integer code)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF if -(1 << 63) <= code < (1 << 63) else 255
    try:
        sys.stderr.write(str(code) + '\n')
    except BaseException:  # noqa: BLE001
        pass
    return 1


def _finish(status, interrupted=False):
    """Ends the program as the interpreter's shutdown would, observably: non-daemon threads are
    joined, atexit handlers run, stdout and stderr are flushed (status 120 when stdout cannot be),
    then the process exits without tearing the interpreter down (which, in a forked child, would
    cost milliseconds of copy-on-write faults; objects alive at exit are not finalised, which
    Python does not promise either)."""
    try:
        th = sys.modules.get('threading')
        if th is not None:
            th._shutdown()
    except BaseException:  # noqa: BLE001
        pass
    # (atexit keeps its handlers in the interpreter: the zygote's module runs the program's)
    _atexit._run_exitfuncs()
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BaseException:  # noqa: BLE001
        status = 120
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    if interrupted:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(status)


def _run(argv, script, path, code, modules):
    """The program (Q): runs `path` as the interpreter would run the script `argv[script]`; for
    arbiter's own driver (and only for it), with the zygote's ready modules (_ready_modules) in
    its globals as __arbiter_modules__ (the driver takes them out before any other code runs)."""
    import builtins

    main = type(sys)('__main__')
    ext = sys.modules['_frozen_importlib_external']
    # what the interpreter's own __main__ holds when it runs a script
    main.__dict__.update(
        __annotations__={}, __builtins__=builtins, __file__=path, __cached__=None, __loader__=ext.SourceFileLoader('__main__', path)
    )
    if modules is not None:
        main.__dict__['__arbiter_modules__'] = modules
    sys.modules['__main__'] = main
    sys.argv = argv[script:]
    sys.orig_argv = list(argv)
    try:
        if code is None:
            with open(path, 'rb') as f:
                src = f.read()
            code = compile(src, path, 'exec', dont_inherit=True)
        exec(code, main.__dict__)
    except SystemExit as e:
        _finish(_exit_status(e.code))
    except BaseException as e:  # noqa: BLE001
        try:
            # the report starts at the program's frames, as the interpreter's own would
            e.__traceback__ = e.__traceback__.tb_next
            sys.excepthook(type(e), e, e.__traceback__)
        except BaseException:  # noqa: BLE001
            pass
        _finish(1, isinstance(e, KeyboardInterrupt))
    _finish(0)


Z = Zygote(int(os.environ.pop('ARBITER_ZYGOTE_IN', '5')), int(os.environ.pop('ARBITER_ZYGOTE_OUT', '6')))
Z.start()
_job = Z.serve()
del Zygote
_run(*_job)
