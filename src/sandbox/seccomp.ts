// The seccomp filter every sandboxed program runs under (a classic BPF program, installed by
// bubblewrap's `--seccomp FD` just before the program is executed, so it holds for the native
// helper, the setpriv/prlimit fallback and everything they exec). It closes the ways out of the
// memory and process bounds that rlimits cannot see:
// - no new namespaces (unshare, setns, clone with CLONE_NEW*; clone3 answers ENOSYS so the C
//   library falls back to clone): no nested user namespace, hence no private mounts;
// - no mount syscalls of any kind (old and new mount API);
// - no SysV shared memory or message queues (segments outlive their processes and are counted by
//   no rlimit);
// - no kernel keyrings, bpf, userfaultfd, perf_event_open or io_uring (kernel attack surface that
//   no test program needs);
// - no ptrace or process_vm_readv/writev (no reading or steering another process of the run, e.g.
//   a grading driver), and none of the administrative calls (modules, kexec, swap, reboot, acct,
//   quotactl, open_by_handle_at, iopl/ioperm) that need privileges the sandbox never has anyway.
// Everything else is allowed. Foreign system-call ABIs (i386 and x32 on x86_64) kill the process.
// With `spawn: false` (the default for graded programs, see RunRequest.allowSpawn) the filter also
// refuses process creation: fork and vfork, and clone without CLONE_THREAD (threads stay
// allowed), all with EPERM. No test program needs a child process, and a child per candidate
// answer is how a fork oracle finds the answer the tests accept. `spawnFilterProgram` is the same
// refusal as a filter of its own, for a grading harness to stack on the solution's process after
// it has forked it (filters stack: the kernel applies every installed filter).

export interface SeccompArch {
  /** AUDIT_ARCH_* value the kernel reports for native system calls. */
  audit: number;
  /** System-call numbers that fail with EPERM. */
  deny: Record<string, number>;
  /** clone's number (its flags argument is checked for CLONE_NEW*). */
  clone: number;
  /** clone3's number (answered with ENOSYS). */
  clone3: number;
  /** fork and vfork, where the architecture has them (arm64 creates processes through clone only). */
  fork?: number[];
  /** x86_64: numbers at or above this are the x32 ABI. */
  x32Bit?: number;
}

// Numbers from the kernel's uapi headers (asm/unistd_64.h for x86_64, asm-generic/unistd.h for arm64).
const X64: SeccompArch = {
  audit: 0xc000003e,
  clone: 56,
  clone3: 435,
  fork: [57, 58],
  x32Bit: 0x40000000,
  deny: {
    unshare: 272,
    setns: 308,
    mount: 165,
    umount2: 166,
    pivot_root: 155,
    chroot: 161,
    open_tree: 428,
    move_mount: 429,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    mount_setattr: 442,
    shmget: 29,
    msgget: 68,
    keyctl: 250,
    add_key: 248,
    request_key: 249,
    bpf: 321,
    userfaultfd: 323,
    perf_event_open: 298,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    ptrace: 101,
    process_vm_readv: 310,
    process_vm_writev: 311,
    kexec_load: 246,
    kexec_file_load: 320,
    init_module: 175,
    finit_module: 313,
    delete_module: 176,
    swapon: 167,
    swapoff: 168,
    reboot: 169,
    acct: 163,
    quotactl: 179,
    open_by_handle_at: 304,
    iopl: 172,
    ioperm: 173,
  },
};

const ARM64: SeccompArch = {
  audit: 0xc00000b7,
  clone: 220,
  clone3: 435,
  deny: {
    unshare: 97,
    setns: 268,
    mount: 40,
    umount2: 39,
    pivot_root: 41,
    chroot: 51,
    open_tree: 428,
    move_mount: 429,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    mount_setattr: 442,
    shmget: 194,
    msgget: 186,
    keyctl: 219,
    add_key: 217,
    request_key: 218,
    bpf: 280,
    userfaultfd: 282,
    perf_event_open: 241,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    ptrace: 117,
    process_vm_readv: 270,
    process_vm_writev: 271,
    kexec_load: 104,
    kexec_file_load: 294,
    init_module: 105,
    finit_module: 273,
    delete_module: 106,
    swapon: 224,
    swapoff: 225,
    reboot: 142,
    acct: 89,
    quotactl: 60,
    open_by_handle_at: 265,
  },
};

/** CLONE_THREAD: a clone that makes a thread of the caller, not a new process. */
export const CLONE_THREAD = 0x00010000;

/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET */
export const CLONE_NEW_MASK = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

const EPERM = 1;
const ENOSYS = 38;

// BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const RET_ALLOW = 0x7fff0000;

// struct seccomp_data offsets: nr, arch, instruction_pointer, args[6] (little-endian low words).
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0_LO = 16;

/** The architecture table for this process, or undefined where no filter is defined. */
export function seccompArch(arch: string = process.arch): SeccompArch | undefined {
  if (arch === 'x64') return X64;
  if (arch === 'arm64') return ARM64;
  return undefined;
}

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const insn = (code: number, k: number, jt = 0, jf = 0): Insn => ({ code, jt, jf, k: k >>> 0 });

export interface FilterOptions {
  /** Allow process creation (fork, vfork, clone without CLONE_THREAD). Default false. */
  spawn?: boolean;
}

/** The filter as the bytes of a `struct sock_filter[]` (8 bytes per instruction, host order). */
export function seccompProgram(a: SeccompArch, opts: FilterOptions = {}): Buffer {
  const p: Insn[] = [];
  archCheck(p, a);
  for (const nr of Object.values(a.deny)) {
    p.push(insn(JEQ_K, nr, 0, 1));
    p.push(insn(RET_K, RET_ERRNO | EPERM));
  }
  if (!opts.spawn) forkRefusal(p, a);
  p.push(insn(JEQ_K, a.clone3, 0, 1));
  p.push(insn(RET_K, RET_ERRNO | ENOSYS));
  // clone: refuse any CLONE_NEW* flag (flags are the first argument on x86_64 and arm64), and,
  // without spawn, any clone that is not a thread
  if (opts.spawn) {
    p.push(insn(JEQ_K, a.clone, 0, 3));
    p.push(insn(LD_W_ABS, OFF_ARG0_LO));
    p.push(insn(JSET_K, CLONE_NEW_MASK, 0, 1));
    p.push(insn(RET_K, RET_ERRNO | EPERM));
  } else {
    p.push(insn(JEQ_K, a.clone, 0, 5));
    p.push(insn(LD_W_ABS, OFF_ARG0_LO));
    p.push(insn(JSET_K, CLONE_NEW_MASK, 2, 0));
    p.push(insn(JSET_K, CLONE_THREAD, 0, 1));
    p.push(insn(RET_K, RET_ALLOW));
    p.push(insn(RET_K, RET_ERRNO | EPERM));
  }
  p.push(insn(RET_K, RET_ALLOW));
  return encode(p);
}

/**
 * A filter that refuses process creation only (fork, vfork, clone without CLONE_THREAD: EPERM;
 * clone3: ENOSYS), to stack on a process that already runs under the base filter: a harness
 * installs it in the solution's process after forking it (PR_SET_SECCOMP, no_new_privs is set).
 */
export function spawnFilterProgram(a: SeccompArch): Buffer {
  const p: Insn[] = [];
  archCheck(p, a);
  forkRefusal(p, a);
  p.push(insn(JEQ_K, a.clone3, 0, 1));
  p.push(insn(RET_K, RET_ERRNO | ENOSYS));
  p.push(insn(JEQ_K, a.clone, 0, 4));
  p.push(insn(LD_W_ABS, OFF_ARG0_LO));
  p.push(insn(JSET_K, CLONE_THREAD, 0, 1));
  p.push(insn(RET_K, RET_ALLOW));
  p.push(insn(RET_K, RET_ERRNO | EPERM));
  p.push(insn(RET_K, RET_ALLOW));
  return encode(p);
}

/** Kills a foreign ABI; leaves the system-call number loaded. */
function archCheck(p: Insn[], a: SeccompArch): void {
  p.push(insn(LD_W_ABS, OFF_ARCH));
  p.push(insn(JEQ_K, a.audit, 1, 0));
  p.push(insn(RET_K, RET_KILL_PROCESS));
  p.push(insn(LD_W_ABS, OFF_NR));
  if (a.x32Bit !== undefined) {
    p.push(insn(JGE_K, a.x32Bit, 0, 1));
    p.push(insn(RET_K, RET_KILL_PROCESS));
  }
}

/** fork and vfork: EPERM (the system-call number is loaded). */
function forkRefusal(p: Insn[], a: SeccompArch): void {
  for (const nr of a.fork ?? []) {
    p.push(insn(JEQ_K, nr, 0, 1));
    p.push(insn(RET_K, RET_ERRNO | EPERM));
  }
}

function encode(p: Insn[]): Buffer {
  const b = Buffer.alloc(p.length * 8);
  p.forEach((x, i) => {
    b.writeUInt16LE(x.code, i * 8);
    b.writeUInt8(x.jt, i * 8 + 2);
    b.writeUInt8(x.jf, i * 8 + 3);
    b.writeUInt32LE(x.k, i * 8 + 4);
  });
  return b;
}

const cached = new Map<string, Buffer | null>();

/** The filter for this host (computed once per options), or null on an architecture without a table. */
export function hostSeccompProgram(opts: FilterOptions = {}): Buffer | null {
  const key = opts.spawn ? 'spawn' : 'nospawn';
  let f = cached.get(key);
  if (f === undefined) {
    const a = seccompArch();
    f = a ? seccompProgram(a, opts) : null;
    cached.set(key, f);
  }
  return f;
}

let spawnCached: Buffer | null | undefined;

/** The stackable no-process-creation filter for this host, or null on an architecture without a table. */
export function hostSpawnFilter(): Buffer | null {
  if (spawnCached === undefined) {
    const a = seccompArch();
    spawnCached = a ? spawnFilterProgram(a) : null;
  }
  return spawnCached;
}
