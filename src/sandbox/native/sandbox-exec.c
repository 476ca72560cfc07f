/*
 * sandbox-exec: the last step inside the bubblewrap sandbox before the untrusted program runs.
 * In one exec it does what `prlimit` + `setpriv` did in two: join the run's memory cgroup (by
 * writing "0" to an inherited cgroup.procs fd, then closing it), set resource limits, and (when
 * arbiter runs as root) drop to an unprivileged uid with an empty capability bounding set and
 * no_new_privs, then exec the program. With --ready-fd it writes "ok" there just before the exec
 * and "error: ..." when any step (the exec included) fails, so that arbiter can tell a sandbox
 * failure from a program that exits 127. Built statically by scripts/build-native.mjs; when it
 * is missing the sandbox falls back to prlimit + setpriv. Every fd above 2 is closed at the exec,
 * so that nothing the arbiter process inherited (its parent's pipes, say) reaches the program
 * (--keep-fds: they stay open, for a launcher whose caller passes fds on purpose).
 *
 * With --seccomp-fd=N it reads a classic BPF program (a `struct sock_filter[]`, 8 bytes per
 * instruction) from fd N to EOF, closes N, and installs it (no_new_privs, then
 * PR_SET_SECCOMP/SECCOMP_MODE_FILTER) as the last step before the exec. Filters stack, so this
 * works as a plain launcher from inside a sandboxed program, which already runs under the
 * sandbox's filter: a grading harness starts its solution's process as
 *   /.arbiter-exec --seccomp-fd=3 -- /usr/bin/node solution.js      (fd 3: the filter's bytes)
 * (the path is SPAWN_EXEC_PATH of bwrap-args.ts; seccomp.ts hostSpawnFilter() is the filter that
 * refuses process creation). An empty, truncated or unreadable filter, or one the kernel refuses,
 * fails closed: exit 127 with a message, and the program never runs.
 *
 * With --apart the program is put in a Landlock domain of its own (a ruleset that handles only
 * the making of block devices, which no sandboxed program can do anyway). What matters is the
 * domain: the kernel refuses a process in a Landlock domain ptrace access to any process outside
 * it, and that check also guards /proc/<pid>/mem, /proc/<pid>/fd/N and pidfd_getfd. So a
 * solution's process started this way cannot read or write its harness's memory or fds, even as
 * the same uid and with the harness dumpable (node cannot make itself non-dumpable). A kernel
 * without Landlock fails closed (exit 127): the program never runs unconfined.
 *
 * usage: sandbox-exec [--ready-fd=N] [--cgroup-fd=N] [--uid=N] [--cpu=S:H] [--as=B] [--data=B]
 *                     [--nproc=N] [--fsize=B] [--nofile=N] [--core=N] [--seccomp-fd=N]
 *                     [--keep-fds] [--apart] -- PROGRAM [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <dirent.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/landlock.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

static int ready_fd = -1;

static void die(const char *what) {
  int e = errno;
  fprintf(stderr, "sandbox-exec: %s: %s\n", what, strerror(e));
  if (ready_fd >= 0) dprintf(ready_fd, "error: %s: %s\n", what, strerror(e));
  _exit(127);
}

/* Marks every fd above 2 close-on-exec (close_range, or /proc/self/fd on kernels before 5.11). */
static void cloexec_all(void) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
#endif
  DIR *d = opendir("/proc/self/fd");
  if (!d) die("listing open fds");
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int fd = atoi(e->d_name);
    if (fd > 2 && fd != dirfd(d)) fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  closedir(d);
}

/* A BPF program of at most BPF_MAXINSNS instructions, read from fd to EOF; fd is closed. */
static struct sock_fprog read_filter(int fd) {
  static struct sock_filter insns[BPF_MAXINSNS + 1];
  size_t got = 0, cap = sizeof insns;
  for (;;) {
    ssize_t n = read(fd, (char *)insns + got, cap - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("--seccomp-fd: reading the filter");
    if (n == 0) break;
    got += (size_t)n;
    if (got == cap) { errno = E2BIG; die("--seccomp-fd: more than BPF_MAXINSNS instructions"); }
  }
  close(fd);
  if (got == 0 || got % sizeof insns[0] != 0) { errno = EINVAL; die("--seccomp-fd: empty or truncated filter"); }
  struct sock_fprog prog = { .len = (unsigned short)(got / sizeof insns[0]), .filter = insns };
  return prog;
}

static unsigned long long num(const char *s, const char *opt) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || (*end && *end != ':')) {
    errno = EINVAL;
    die(opt);
  }
  return v;
}

static void limit(int res, const char *val, const char *opt) {
  struct rlimit rl;
  rl.rlim_cur = num(val, opt);
  const char *colon = strchr(val, ':');
  rl.rlim_max = colon ? num(colon + 1, opt) : rl.rlim_cur;
  if (setrlimit(res, &rl) != 0) die(opt);
}

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

/* A Landlock domain of the process's own (see --apart above); needs no_new_privs first. */
static void landlock_apart(void) {
  struct landlock_ruleset_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_BLOCK;
  int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (fd < 0) die("--apart: creating a Landlock ruleset (is Landlock enabled in this kernel?)");
  if (syscall(SYS_landlock_restrict_self, fd, 0) != 0) die("--apart: entering the Landlock domain");
  close(fd);
}

int main(int argc, char **argv) {
  long uid = -1;
  int keep_fds = 0, apart = 0;
  struct sock_fprog filter = { 0, NULL };
  int i = 1;
  /* The readiness and cgroup fds come first so that every later step can report on them. */
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (!strncmp(a, "--ready-fd=", 11)) {
      ready_fd = (int)num(a + 11, "--ready-fd");
      if (fcntl(ready_fd, F_SETFD, FD_CLOEXEC) != 0) { ready_fd = -1; die("--ready-fd"); }
    } else if (!strncmp(a, "--cgroup-fd=", 12)) {
      int fd = (int)num(a + 12, "--cgroup-fd");
      if (write(fd, "0\n", 2) != 2) die("joining the run's cgroup");
      close(fd);
    } else break;
  }
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) { i++; break; }
    if (strcmp(a, "--keep-fds") == 0) { keep_fds = 1; continue; }
    if (strcmp(a, "--apart") == 0) { apart = 1; continue; }
    const char *eq = strchr(a, '=');
    if (!eq) { errno = EINVAL; die(a); }
    const char *v = eq + 1;
    if (!strncmp(a, "--uid=", 6)) uid = (long)num(v, "--uid");
    else if (!strncmp(a, "--cpu=", 6)) limit(RLIMIT_CPU, v, "--cpu");
    else if (!strncmp(a, "--as=", 5)) limit(RLIMIT_AS, v, "--as");
    else if (!strncmp(a, "--data=", 7)) limit(RLIMIT_DATA, v, "--data");
    else if (!strncmp(a, "--nproc=", 8)) limit(RLIMIT_NPROC, v, "--nproc");
    else if (!strncmp(a, "--fsize=", 8)) limit(RLIMIT_FSIZE, v, "--fsize");
    else if (!strncmp(a, "--nofile=", 9)) limit(RLIMIT_NOFILE, v, "--nofile");
    else if (!strncmp(a, "--core=", 7)) limit(RLIMIT_CORE, v, "--core");
    else if (!strncmp(a, "--seccomp-fd=", 13)) {
      if (filter.filter) { errno = EINVAL; die("--seccomp-fd given twice"); }
      filter = read_filter((int)num(v, "--seccomp-fd"));
    }
    else { errno = EINVAL; die(a); }
  }
  if (i >= argc) { errno = EINVAL; die("no program given"); }
  if (uid >= 0) {
    for (int cap = 0; cap < 64; cap++) {
      if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) die("dropping capabilities");
    }
    if (setgroups(0, NULL) != 0) die("setgroups");
    if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0) die("setresgid");
    if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) die("setresuid");
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs");
  if (apart) landlock_apart();
  if (filter.filter && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0) != 0) die("--seccomp-fd: installing the filter");
  if (!keep_fds) cloexec_all();
  if (ready_fd >= 0 && write(ready_fd, "ok\n", 3) != 3) die("--ready-fd");
  execv(argv[i], &argv[i]);
  die(argv[i]);
  return 127;
}
