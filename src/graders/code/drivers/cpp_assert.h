/* arbiter's assert for the tests of C++ humaneval: counts the assertions that pass; a failing
   one reports like glibc ("Assertion ... failed.") and traps, calling nothing the solution could
   replace. Not guarded, like the system header, so every inclusion redefines assert. */
#undef assert
#define assert(...) (static_cast<bool>(__VA_ARGS__) ? static_cast<void>(++__arbiter_asserts) : __arbiter_assert_fail(#__VA_ARGS__, __FILE__, __LINE__))
#ifndef ARBITER_ASSERT_IMPL
#define ARBITER_ASSERT_IMPL
#include <unistd.h>
static long __arbiter_asserts = 0;
static void __arbiter_put(const char *s) {
  unsigned long n = 0;
  while (s[n]) n++;
  while (n > 0) {
    long w = write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= (unsigned long)w;
  }
}
[[noreturn]] static void __arbiter_assert_fail(const char *expr, const char *file, int line) {
  char num[24];
  int k = 23;
  num[k] = 0;
  unsigned u = line > 0 ? (unsigned)line : 0u;
  do { num[--k] = (char)('0' + u % 10); u /= 10; } while (u && k > 0);
  __arbiter_put(file);
  __arbiter_put(":");
  __arbiter_put(num + k);
  __arbiter_put(": Assertion `");
  __arbiter_put(expr);
  __arbiter_put("' failed.\n");
  __builtin_trap();
}
#endif
