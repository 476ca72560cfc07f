// Compiles the sandbox's native helpers into dist/native/: sandbox-exec (src/sandbox/native/sandbox-exec.c),
// statically linked so its exec is cheap. Optional: without a C compiler the sandbox falls back
// to prlimit + setpriv, and this script only says so.
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../src/sandbox/native/sandbox-exec.c', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/native/', import.meta.url));
mkdirSync(outDir, { recursive: true });
const out = outDir + 'sandbox-exec';
const mtime = (f) => {
  try {
    return statSync(f).mtimeMs;
  } catch {
    return -1;
  }
};
const cc = mtime(out) > mtime(src) ? 'up-to-date' : ['cc', 'gcc'].find((c) => spawnSync(c, ['--version']).status === 0);
if (cc === 'up-to-date') {
  // nothing to do
} else if (!cc) {
  console.error('build-native: no C compiler; the sandbox will use prlimit + setpriv');
} else {
  let r = spawnSync(cc, ['-O2', '-static', '-Wall', '-o', out, src], { stdio: 'inherit' });
  if (r.status !== 0) r = spawnSync(cc, ['-O2', '-Wall', '-o', out, src], { stdio: 'inherit' });
  if (r.status !== 0) console.error('build-native: compile failed; the sandbox will use prlimit + setpriv');
}

// The warm Python interpreter's fork helper (src/sandbox/native/zygote-fork.c), a shared library
// the zygote loads with ctypes; optional: without it the zygote forks in Python (slower).
const zsrc = fileURLToPath(new URL('../src/sandbox/native/zygote-fork.c', import.meta.url));
const zout = outDir + 'zygote-fork.so';
if (mtime(zout) <= mtime(zsrc)) {
  const zcc = ['cc', 'gcc'].find((c) => spawnSync(c, ['--version']).status === 0);
  if (!zcc) console.error('build-native: no C compiler; the warm Python interpreter will fork in Python');
  else if (spawnSync(zcc, ['-O2', '-Wall', '-shared', '-fPIC', '-o', zout, zsrc], { stdio: 'inherit' }).status !== 0)
    console.error('build-native: zygote-fork.so failed to compile; the warm Python interpreter will fork in Python');
}

// The warm run's pid 1 after its fork (src/sandbox/native/zygote-init.c): no libc, x86_64 only;
// optional: without it each run's pid 1 is a copy of the zygote's template (slower).
const isrc = fileURLToPath(new URL('../src/sandbox/native/zygote-init.c', import.meta.url));
const iout = outDir + 'zygote-init';
if (process.arch === 'x64' && process.platform === 'linux' && mtime(iout) <= mtime(isrc)) {
  const icc = ['cc', 'gcc'].find((c) => spawnSync(c, ['--version']).status === 0);
  if (!icc) console.error('build-native: no C compiler; each warm run will copy its template for its pid 1');
  else if (
    spawnSync(
      icc,
      ['-O2', '-Wall', '-static', '-nostdlib', '-fno-stack-protector', '-fno-asynchronous-unwind-tables', '-fno-pie', '-no-pie', '-o', iout, isrc],
      {
        stdio: 'inherit',
      },
    ).status !== 0
  )
    console.error('build-native: zygote-init failed to compile; each warm run will copy its template for its pid 1');
}
