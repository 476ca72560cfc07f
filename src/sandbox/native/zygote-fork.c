/*
 * zygote-fork: the two forks of a warm Python run (see ../zygote/zygote.py), done in C so that
 * the run's pid 1 never executes Python: a forked Python process that runs even a few lines
 * touches hundreds of copy-on-write pages, which costs about a millisecond per run. Loaded by the
 * zygote with ctypes (as a PyDLL, so the interpreter lock stays held); optional: without it the
 * zygote forks in Python. Built by scripts/build-native.mjs.
 *
 * zygote_fork_run(fds, nfds, close, nclose) forks P (pid 1 of the pid namespace the caller has
 * just unshared). P closes the zygote's own fds (`close`), becomes a session leader, enters a new
 * IPC namespace, mounts the namespace's /proc, forks Q and then only reaps: when Q ends, P exits with Q's status (128 + N
 * for a signal N, as bwrap reports it), and the kernel kills whatever else is left in the
 * namespace. Returns P's pid in the caller, 0 in Q (which returns to Python), -errno on failure.
 * fds = {in_r, out_w, err_w, ready_w}: Q's ends; P writes "error: ..." on ready_w if a step fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static void fail(int ready_fd, const char *what) {
  char buf[256];
  int n = snprintf(buf, sizeof buf, "error: %s: %s\n", what, strerror(errno));
  if (n > 0 && write(ready_fd, buf, (size_t)n) < 0) { /* nothing more to do */ }
  _exit(127);
}

int zygote_fork_run(const int *fds, int nfds, const int *close_fds, int nclose) {
  if (nfds != 4) return -EINVAL;
  pid_t p = fork();
  if (p < 0) return -errno;
  if (p > 0) return (int)p;
  /* P */
  for (int i = 0; i < nclose; i++) close(close_fds[i]);
  if (setsid() < 0) fail(fds[3], "setsid");
  /* a fresh IPC namespace: SysV semaphores and POSIX queues die with the run, as in a cold run */
  if (unshare(CLONE_NEWIPC) != 0) fail(fds[3], "unshare ipc");
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) fail(fds[3], "mount /proc");
  pid_t q = fork();
  if (q < 0) fail(fds[3], "fork");
  if (q == 0) return 0; /* Q: back to Python */
  for (int i = 0; i < nfds; i++) close(fds[i]);
  int nul = open("/dev/null", O_RDWR);
  if (nul >= 0) {
    dup2(nul, 0);
    dup2(nul, 1);
    dup2(nul, 2);
    if (nul > 2) close(nul);
  }
  int st = 0;
  for (;;) {
    pid_t w = wait(&st);
    if (w == q) break;
    if (w < 0 && errno != EINTR) _exit(127);
  }
  if (WIFEXITED(st)) _exit(WEXITSTATUS(st));
  _exit(128 + WTERMSIG(st));
}
