// arbiter's JavaScript spare (see ../spares.ts): a sandboxed node started ahead of its run, under
// the run's uid, rlimits, seccomp filter and cgroup, with the run's flags and environment. It
// waits on stdin for exactly one job (a 4-byte big-endian header length, a JSON header, the files'
// bytes), writes the files into its private /tmp, and runs main.js as `node <flags> main.js args`
// would; what follows on stdin is the program's own stdin. One process per program: nothing of
// one program can reach another. Node cannot fork a warm interpreter, so this only hides start-up.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

function readExact(n) {
  const b = Buffer.alloc(n);
  let off = 0;
  while (off < n) {
    const k = fs.readSync(0, b, off, n - off, null);
    if (k === 0) process.exit(0); // no job: the pool let this spare go
    off += k;
  }
  return b;
}

const job = JSON.parse(readExact(readExact(4).readUInt32BE(0)).toString('utf8'));
for (const f of job.files) {
  const parts = f.name.split('/');
  for (let k = 1; k < parts.length; k++) {
    const d = `/tmp/${parts.slice(0, k).join('/')}`;
    if (!fs.existsSync(d)) {
      fs.mkdirSync(d);
      fs.chmodSync(d, 0o1777);
    }
  }
  const p = `/tmp/${f.name}`;
  fs.writeFileSync(p, readExact(f.size), { mode: 0o600 });
  fs.chmodSync(p, f.exec ? 0o755 : 0o644);
}
process.argv = [process.argv[0], path.resolve('/tmp', job.argv[job.script]), ...job.argv.slice(job.script + 1)];
delete require.cache[__filename];
require('node:module').runMain();
