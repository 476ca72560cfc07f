// The seccomp filter every sandboxed program runs under (a classic BPF program, installed by
// bubblewrap's `--seccomp FD` just before the program is executed, so it holds for the native
// helper, the setpriv/prlimit fallback and everything they exec). It closes the ways out of the
// memory and process bounds that rlimits cannot see:
// - no new namespaces (unshare, setns, clone with CLONE_NEW*; clone3 answers ENOSYS so the C
//   library falls back to clone): no nested user namespace, hence no private mounts;
// - no mount syscalls of any kind (old and new mount API);
// - no SysV shared memory or message queues (segments outlive their processes and are counted by
//   no rlimit);
// - no ptrace (a program could otherwise trace its own children past their limits' intent), no
//   kernel keyrings, bpf, userfaultfd, perf_event_open or io_uring (kernel attack surface that no
//   test program needs).
// Everything else is allowed. Foreign system-call ABIs (i386 and x32 on x86_64) kill the process.

export interface SeccompArch {
  /** AUDIT_ARCH_* value the kernel reports for native system calls. */
  audit: number;
  /** System-call numbers that fail with EPERM. */
  deny: Record<string, number>;
  /** clone's number (its flags argument is checked for CLONE_NEW*). */
  clone: number;
  /** clone3's number (answered with ENOSYS). */
  clone3: number;
  /** x86_64: numbers at or above this are the x32 ABI. */
  x32Bit?: number;
}

// Numbers from the kernel's uapi headers (asm/unistd_64.h for x86_64, asm-generic/unistd.h for arm64).
const X64: SeccompArch = {
  audit: 0xc000003e,
  clone: 56,
  clone3: 435,
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
    ptrace: 101,
    keyctl: 250,
    add_key: 248,
    request_key: 249,
    bpf: 321,
    userfaultfd: 323,
    perf_event_open: 298,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
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
    ptrace: 117,
    keyctl: 219,
    add_key: 217,
    request_key: 218,
    bpf: 280,
    userfaultfd: 282,
    perf_event_open: 241,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
  },
};

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

/** The filter as the bytes of a `struct sock_filter[]` (8 bytes per instruction, host order). */
export function seccompProgram(a: SeccompArch): Buffer {
  const p: Insn[] = [];
  p.push(insn(LD_W_ABS, OFF_ARCH));
  p.push(insn(JEQ_K, a.audit, 1, 0));
  p.push(insn(RET_K, RET_KILL_PROCESS));
  p.push(insn(LD_W_ABS, OFF_NR));
  if (a.x32Bit !== undefined) {
    p.push(insn(JGE_K, a.x32Bit, 0, 1));
    p.push(insn(RET_K, RET_KILL_PROCESS));
  }
  for (const nr of Object.values(a.deny)) {
    p.push(insn(JEQ_K, nr, 0, 1));
    p.push(insn(RET_K, RET_ERRNO | EPERM));
  }
  p.push(insn(JEQ_K, a.clone3, 0, 1));
  p.push(insn(RET_K, RET_ERRNO | ENOSYS));
  // clone: refuse any CLONE_NEW* flag (flags are the first argument on x86_64 and arm64)
  p.push(insn(JEQ_K, a.clone, 0, 3));
  p.push(insn(LD_W_ABS, OFF_ARG0_LO));
  p.push(insn(JSET_K, CLONE_NEW_MASK, 0, 1));
  p.push(insn(RET_K, RET_ERRNO | EPERM));
  p.push(insn(RET_K, RET_ALLOW));
  const b = Buffer.alloc(p.length * 8);
  p.forEach((x, i) => {
    b.writeUInt16LE(x.code, i * 8);
    b.writeUInt8(x.jt, i * 8 + 2);
    b.writeUInt8(x.jf, i * 8 + 3);
    b.writeUInt32LE(x.k, i * 8 + 4);
  });
  return b;
}

let cached: Buffer | null | undefined;

/** The filter for this host (computed once), or null on an architecture without a table. */
export function hostSeccompProgram(): Buffer | null {
  if (cached === undefined) {
    const a = seccompArch();
    cached = a ? seccompProgram(a) : null;
  }
  return cached;
}
