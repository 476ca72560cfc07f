/*
 * sandbox-exec: the last step inside the bubblewrap sandbox before the untrusted program runs.
 * In one exec it does what `prlimit` + `setpriv` did in two: set resource limits, and (when
 * arbiter runs as root) drop to an unprivileged uid with an empty capability bounding set and
 * no_new_privs, then exec the program. Built statically by scripts/build-native.mjs; when it is
 * missing the sandbox falls back to prlimit + setpriv.
 *
 * usage: sandbox-exec [--uid=N] [--cpu=S:H] [--as=B] [--data=B] [--nproc=N] [--fsize=B]
 *                     [--nofile=N] [--core=N] -- PROGRAM [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

static void die(const char *what) {
  fprintf(stderr, "sandbox-exec: %s: %s\n", what, strerror(errno));
  _exit(127);
}

static unsigned long long num(const char *s, const char *opt) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || (*end && *end != ':')) {
    fprintf(stderr, "sandbox-exec: bad value for %s: %s\n", opt, s);
    _exit(127);
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

int main(int argc, char **argv) {
  long uid = -1;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) { i++; break; }
    const char *eq = strchr(a, '=');
    if (!eq) { fprintf(stderr, "sandbox-exec: bad option %s\n", a); return 127; }
    const char *v = eq + 1;
    if (!strncmp(a, "--uid=", 6)) uid = (long)num(v, "--uid");
    else if (!strncmp(a, "--cpu=", 6)) limit(RLIMIT_CPU, v, "--cpu");
    else if (!strncmp(a, "--as=", 5)) limit(RLIMIT_AS, v, "--as");
    else if (!strncmp(a, "--data=", 7)) limit(RLIMIT_DATA, v, "--data");
    else if (!strncmp(a, "--nproc=", 8)) limit(RLIMIT_NPROC, v, "--nproc");
    else if (!strncmp(a, "--fsize=", 8)) limit(RLIMIT_FSIZE, v, "--fsize");
    else if (!strncmp(a, "--nofile=", 9)) limit(RLIMIT_NOFILE, v, "--nofile");
    else if (!strncmp(a, "--core=", 7)) limit(RLIMIT_CORE, v, "--core");
    else { fprintf(stderr, "sandbox-exec: unknown option %s\n", a); return 127; }
  }
  if (i >= argc) { fprintf(stderr, "sandbox-exec: no program given\n"); return 127; }
  if (uid >= 0) {
    for (int cap = 0; cap < 64; cap++) {
      if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) die("dropping capabilities");
    }
    if (setgroups(0, NULL) != 0) die("setgroups");
    if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0) die("setresgid");
    if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) die("setresuid");
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs");
  execv(argv[i], &argv[i]);
  die(argv[i]);
  return 127;
}
