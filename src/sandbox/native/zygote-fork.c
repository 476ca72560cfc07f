/*
 * zygote-fork: the forks of a warm Python run (see ../zygote/zygote.py), done in C so that the
 * run's pid 1 never executes Python: a forked Python process that runs even a few lines touches
 * hundreds of copy-on-write pages, which costs about a millisecond per run. Loaded by the zygote
 * with ctypes (as a PyDLL, so the interpreter lock stays held); optional: without it the zygote
 * forks in Python. Built by scripts/build-native.mjs.
 *
 * zygote_template_serve(ctl, fds) is the loop of the template T, a child of the zygote that
 * never runs Python again: per run it receives Q's four stdio/ready fds and the job pipe's read
 * end (SCM_RIGHTS, one message), clones P into a new pid namespace as a child of the zygote
 * (CLONE_PARENT, so the zygote waits for it as before), closes its copies and answers P's pid
 * (an int, -errno on failure). T's memory never changes between runs, so the zygote (whose
 * Python does the run's bookkeeping) no longer shares copy-on-write pages with the programs, and
 * no run's data ever reaches the memory a program inherits. Returns 0 in Q with fds =
 * {in_r, out_w, err_w, ready_w, job_r}, or -1 in T when the zygote closes `ctl`.
 *
 * With `init` (the path of zygote-init, which T can exec), P is cloned sharing T's memory
 * (CLONE_VM | CLONE_VFORK, on a stack of its own, with every signal blocked), forks Q from that
 * memory and execs zygote-init, which gives the memory back (T waits until then) and does P's
 * reaping: no copy of T's page tables is made or torn down for P. Q, a copy of T's memory taken
 * while T waits inside clone(), returns to T's frame with siglongjmp and from there to Python.
 *
 * zygote_fork_run(fds, nfds, close, nclose) forks P from the calling zygote itself (pid 1 of the
 * pid namespace the caller has just unshared): the path used without a template.
 *
 * P closes the zygote's own fds, becomes a session leader, enters a new IPC namespace, mounts the
 * namespace's /proc, forks Q and then only reaps: when Q ends, P exits with Q's status (128 + N
 * for a signal N, as bwrap reports it), and the kernel kills whatever else is left in the
 * namespace. P writes "error: ..." on ready_w if a step fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static void fail(int ready_fd, const char *what) {
  char buf[256];
  int n = snprintf(buf, sizeof buf, "error: %s: %s\n", what, strerror(errno));
  if (n > 0 && write(ready_fd, buf, (size_t)n) < 0) { /* nothing more to do */ }
  _exit(127);
}

/* P's set-up, fds = {in_r, out_w, err_w, ready_w, ...}: closes `close_fds` (the zygote's or T's
   own), becomes a session leader, enters a new IPC namespace (SysV semaphores and POSIX queues die
   with the run, as in a cold run), mounts the namespace's /proc and forks Q. Returns 0 in Q, and
   Q's pid in P, whose stdio is then /dev/null. */
static pid_t p_start(const int *fds, const int *close_fds, int nclose) {
  for (int i = 0; i < nclose; i++) close(close_fds[i]);
  if (setsid() < 0) fail(fds[3], "setsid");
  if (unshare(CLONE_NEWIPC) != 0) fail(fds[3], "unshare ipc");
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) fail(fds[3], "mount /proc");
  pid_t q = fork();
  if (q < 0) fail(fds[3], "fork");
  if (q == 0) return 0;
  int nul = open("/dev/null", O_RDWR);
  if (nul >= 0) {
    dup2(nul, 0);
    dup2(nul, 1);
    dup2(nul, 2);
    if (nul > 2) close(nul);
  }
  return q;
}

/* P's part: returns 0 in Q (back to Python); in P reaps until Q ends and exits with its status. */
static int run_p(const int *fds, int nfds, const int *close_fds, int nclose) {
  pid_t q = p_start(fds, close_fds, nclose);
  if (q == 0) return 0;
  for (int i = 0; i < nfds; i++) close(fds[i]);
  int st = 0;
  for (;;) {
    pid_t w = wait(&st);
    if (w == q) break;
    if (w < 0 && errno != EINTR) _exit(127);
  }
  if (WIFEXITED(st)) _exit(WEXITSTATUS(st));
  _exit(128 + WTERMSIG(st));
}

int zygote_fork_run(const int *fds, int nfds, const int *close_fds, int nclose) {
  if (nfds != 4) return -EINVAL;
  pid_t p = fork();
  if (p < 0) return -errno;
  if (p > 0) return (int)p;
  return run_p(fds, nfds, close_fds, nclose);
}

#define TEMPLATE_FDS 5

/* P's part when it shares T's memory (it runs on p_stack): never returns */
static struct {
  int fds[TEMPLATE_FDS];
  int ctl;
  const char *init;
} p_args;
static sigjmp_buf q_return; /* T's frame, for Q (which holds a copy of it) to return to */
static sigset_t t_mask;     /* the signal mask T had, which Q gets back */
static char p_stack[64 * 1024] __attribute__((aligned(64)));

static int p_shared(void *unused) {
  (void)unused;
  int own[1] = {p_args.ctl};
  pid_t q = p_start(p_args.fds, own, 1);
  if (q == 0) siglongjmp(q_return, 1); /* Q */
  /* Q's fds arrived close-on-exec (MSG_CMSG_CLOEXEC): the exec closes P's copies, and until it
     has succeeded the ready pipe can still say why a failed one failed */
  const int *fds = p_args.fds;
  char num[24];
  int n = snprintf(num, sizeof num, "%d", (int)q);
  if (n <= 0) _exit(127);
  char *argv[] = {(char *)p_args.init, num, NULL};
  char *envp[] = {NULL};
  execve(p_args.init, argv, envp);
  /* without its init the namespace dies with P, and Q with it: the run reports an error */
  fail(fds[3], "exec zygote-init");
  return 0;
}

int zygote_template_serve(int ctl, int *out, const char *init) {
  for (;;) {
    char byte;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
      char buf[CMSG_SPACE(sizeof(int) * TEMPLATE_FDS)];
      struct cmsghdr align;
    } u;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t n = recvmsg(ctl, &msg, MSG_CMSG_CLOEXEC);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return -1;
    }
    int fds[TEMPLATE_FDS];
    int got = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      for (int i = 0; i < k; i++) {
        int fd;
        memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        if (got < TEMPLATE_FDS) fds[got++] = fd;
        else close(fd);
      }
    }
    int answer;
    if (got != TEMPLATE_FDS || (msg.msg_flags & MSG_CTRUNC)) {
      for (int i = 0; i < got; i++) close(fds[i]);
      answer = -EPROTO;
    } else if (init) {
      memcpy(p_args.fds, fds, sizeof fds);
      p_args.ctl = ctl;
      p_args.init = init;
      sigset_t all;
      sigfillset(&all);
      sigprocmask(SIG_SETMASK, &all, &t_mask);
      if (sigsetjmp(q_return, 0) != 0) {
        /* Q, in its own copy of this frame */
        sigprocmask(SIG_SETMASK, &t_mask, NULL);
        for (int i = 0; i < TEMPLATE_FDS; i++) out[i] = p_args.fds[i];
        return 0;
      }
      int p = clone(p_shared, p_stack + sizeof p_stack, CLONE_VM | CLONE_VFORK | CLONE_PARENT | CLONE_NEWPID | SIGCHLD, NULL);
      answer = p < 0 ? -errno : p;
      sigprocmask(SIG_SETMASK, &t_mask, NULL);
      for (int i = 0; i < TEMPLATE_FDS; i++) close(fds[i]);
    } else {
      /* P: a child of the zygote (CLONE_PARENT), pid 1 of a new pid namespace */
      long p = syscall(SYS_clone, CLONE_PARENT | CLONE_NEWPID | SIGCHLD, 0, NULL, NULL, 0);
      if (p == 0) {
        int own[1] = {ctl};
        /* the received fds were marked close-on-exec in transit; Q's are dup2'ed over 0-2 or
           kept open until the program's exec (ready_w) or read (job_r) */
        if (run_p(fds, TEMPLATE_FDS, own, 1) == 0) {
          for (int i = 0; i < TEMPLATE_FDS; i++) out[i] = fds[i];
          return 0; /* Q */
        }
      }
      answer = p < 0 ? -errno : (int)p;
      for (int i = 0; i < TEMPLATE_FDS; i++) close(fds[i]);
    }
    const char *a = (const char *)&answer;
    size_t left = sizeof answer;
    while (left > 0) {
      ssize_t w = write(ctl, a, left);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return -1;
      a += w;
      left -= (size_t)w;
    }
  }
}
