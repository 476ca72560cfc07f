/*
 * zygote-init: what the pid 1 (P) of a warm Python run execs once it has forked the program (see
 * zygote-fork.c): P is cloned sharing the template's memory, so that no copy of the template's
 * page tables is made for it, and must exec to give that memory back; this is what it becomes.
 * It reaps every process of the run's pid namespace and, when the program Q (argv[1], its pid)
 * ends, exits with Q's status (128 + N for a signal N, as bwrap reports it); the kernel then
 * kills whatever else is left in the namespace. No libc, so that its exec costs next to nothing:
 * x86_64 Linux system calls only. Built (x86_64 only) by scripts/build-native.mjs.
 */
#if !defined(__x86_64__) || !defined(__linux__)
#error "zygote-init is x86_64 Linux only"
#endif

#define SYS_WAIT4 61
#define SYS_EXIT_GROUP 231
#define EINTR 4

static long sys4(long n, long a, long b, long c, long d) {
  long r;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
  return r;
}

static void __attribute__((noreturn)) quit(long status) {
  for (;;) sys4(SYS_EXIT_GROUP, status, 0, 0, 0);
}

void __attribute__((noreturn, used)) init_main(long *sp) {
  long argc = sp[0];
  if (argc != 2) quit(127);
  const char *s = (const char *)sp[2];
  long q = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') quit(127);
    q = q * 10 + (*s - '0');
  }
  int st = 0;
  for (;;) {
    long w = sys4(SYS_WAIT4, -1, (long)&st, 0, 0);
    if (w == q) break;
    if (w < 0 && w != -EINTR) quit(127);
  }
  if ((st & 0x7f) == 0) quit((st >> 8) & 0xff);
  quit(128 + (st & 0x7f));
}

/* the entry point: the kernel leaves argc, argv... on the stack */
__asm__(".text\n.globl _start\n_start:\n  mov %rsp, %rdi\n  and $-16, %rsp\n  call init_main\n  hlt\n");
