// Hostile programs for the containment tests, in each language. Each entry says which failure
// the `code` grader must report (stdio format, one case expecting the output "ok").
import { homedir } from 'node:os';

export type Expect = 'timeout' | 'runtime_error' | 'output_limit' | 'wrong_output' | 'pass';

export interface Hostile {
  name: string;
  /** Acceptable failure kinds (metadata.failure), or 'pass' for programs that legitimately finish. */
  expect: Expect[];
  /** What is acceptable instead on a host without a memory cgroup (the documented rlimit bound). */
  expectWithoutCgroup?: Expect[];
  /** The reason must show this (what the probe observed). */
  reason?: RegExp;
  /** Grader limits for this program, when not the shared ones. */
  limits?: { time_ms?: number; memory_mb?: number; file_size_bytes?: number };
  python: string;
  javascript: string;
  cpp: string;
}

export const ESCAPE_NAME = 'arbiter_sandbox_escape_marker';

export function hostilePrograms(project: string): Hostile[] {
  const home = homedir();
  const writeTargets = [`${home}/${ESCAPE_NAME}`, `${project}/${ESCAPE_NAME}`, `/etc/${ESCAPE_NAME}`, `/tmp/../etc/${ESCAPE_NAME}`];
  const readTargets = [`${project}/package.json`, `${home}/.bashrc`, `${home}/.profile`, '/etc/passwd', '/etc/hostname', '/etc/shadow'];
  const pyList = (xs: string[]) => JSON.stringify(xs);
  return [
    {
      name: 'fork bomb',
      expect: ['timeout', 'runtime_error'],
      python: 'import os\nwhile True:\n    os.fork()\n',
      javascript:
        "const { spawn } = require('child_process');\nfor (;;) { try { spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']); } catch (e) {} }\n",
      cpp: '#include <unistd.h>\nint main() { for (;;) fork(); }\n',
    },
    {
      name: 'memory bomb',
      expect: ['runtime_error'],
      // a small memory limit and a generous time limit: first-touch page faults are slow on some VMs
      limits: { memory_mb: 128, time_ms: 15_000 },
      python: 'xs = []\nwhile True:\n    xs.append(bytearray(16 * 1024 * 1024))\n',
      javascript: 'const xs = [];\nfor (;;) xs.push(Buffer.alloc(16 * 1024 * 1024, 1));\n',
      cpp: '#include <vector>\n#include <cstring>\nint main() { std::vector<char*> v; for (;;) { char* p = new char[16 << 20]; std::memset(p, 1, 16 << 20); v.push_back(p); } }\n',
    },
    {
      name: 'infinite loop',
      expect: ['timeout'],
      python: 'while True:\n    pass\n',
      javascript: 'for (;;) {}\n',
      cpp: 'int main() { volatile unsigned long x = 0; for (;;) x++; }\n',
    },
    {
      name: 'sleep forever',
      expect: ['timeout'],
      python: 'import time\ntime.sleep(10**6)\n',
      javascript: 'setInterval(() => {}, 1 << 30);\n',
      cpp: '#include <unistd.h>\nint main() { for (;;) sleep(1000); }\n',
    },
    {
      name: 'child left running after the parent exits',
      expect: ['pass'],
      python: "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(10**6)\nprint('ok')\n",
      javascript:
        "const { spawn } = require('child_process');\nspawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' }).unref();\nconsole.log('ok');\n",
      cpp: '#include <unistd.h>\n#include <cstdio>\nint main() { if (fork() == 0) { setsid(); for (;;) sleep(1000); } std::puts("ok"); return 0; }\n',
    },
    {
      name: 'network connect',
      expect: ['runtime_error'],
      python: "import socket\ns = socket.create_connection(('1.1.1.1', 80), timeout=3)\nprint('CONNECTED')\n",
      javascript:
        "const s = require('net').connect(80, '1.1.1.1', () => { console.log('CONNECTED'); process.exit(0); });\ns.on('error', (e) => { console.error(e.message); process.exit(2); });\n",
      cpp: '#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n#include <cstdio>\nint main() { int s = socket(AF_INET, SOCK_STREAM, 0); sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(80); inet_pton(AF_INET, "1.1.1.1", &a.sin_addr); if (connect(s, (sockaddr*)&a, sizeof a) != 0) { std::perror("connect"); return 2; } std::puts("CONNECTED"); }\n',
    },
    {
      name: 'write outside its temp dir (home, project, /etc)',
      expect: ['runtime_error'],
      python: `import sys\nok = []\nfor p in ${pyList(writeTargets)}:\n    try:\n        open(p, 'w').write('x'); ok.append(p)\n    except OSError as e:\n        print(p, e, file=sys.stderr)\nprint('ESCAPED', ok) if ok else sys.exit(3)\n`,
      javascript: `const fs = require('fs');\nconst ok = [];\nfor (const p of ${JSON.stringify(writeTargets)}) { try { fs.writeFileSync(p, 'x'); ok.push(p); } catch (e) { console.error(p, e.code); } }\nif (ok.length) console.log('ESCAPED', ok); else process.exit(3);\n`,
      cpp: `#include <cstdio>\nint main() { const char* ps[] = {${writeTargets.map((t) => JSON.stringify(t)).join(', ')}}; int ok = 0; for (auto p : ps) { FILE* f = std::fopen(p, "w"); if (f) { std::fputs("x", f); std::fclose(f); ok++; std::printf("ESCAPED %s\\n", p); } else std::perror(p); } return ok ? 0 : 3; }\n`,
    },
    {
      name: 'read outside its temp dir (home, project, /etc)',
      expect: ['runtime_error'],
      python: `import sys\nleaks = []\nfor p in ${pyList(readTargets)}:\n    try:\n        open(p).read(); leaks.append(p)\n    except OSError as e:\n        print(p, e, file=sys.stderr)\nprint('LEAK', leaks) if leaks else sys.exit(3)\n`,
      javascript: `const fs = require('fs');\nconst leaks = [];\nfor (const p of ${JSON.stringify(readTargets)}) { try { fs.readFileSync(p); leaks.push(p); } catch (e) { console.error(p, e.code); } }\nif (leaks.length) console.log('LEAK', leaks); else process.exit(3);\n`,
      cpp: `#include <cstdio>\nint main() { const char* ps[] = {${readTargets.map((t) => JSON.stringify(t)).join(', ')}}; int leaks = 0; for (auto p : ps) { FILE* f = std::fopen(p, "r"); if (f) { leaks++; std::printf("LEAK %s\\n", p); std::fclose(f); } else std::perror(p); } return leaks ? 0 : 3; }\n`,
    },
    {
      name: '100 MB of output',
      expect: ['output_limit'],
      python: "import sys\nline = 'y' * 1023 + '\\n'\nfor _ in range(100 * 1024):\n    sys.stdout.write(line)\n",
      javascript: "const line = 'y'.repeat(1023) + '\\n';\nfor (let i = 0; i < 100 * 1024; i++) process.stdout.write(line);\n",
      cpp: "#include <cstdio>\n#include <string>\nint main() { std::string line(1023, 'y'); line += '\\n'; for (int i = 0; i < 100 * 1024; i++) std::fwrite(line.data(), 1, line.size(), stdout); }\n",
    },
    {
      // 4 MiB into /tmp past a 1 MiB file-size limit: SIGXFSZ, or EFBIG where the runtime ignores it
      name: 'a file past the file-size limit',
      expect: ['runtime_error'],
      reason: /file too large|SIGXFSZ|EFBIG/i,
      limits: { file_size_bytes: 1024 * 1024 },
      python: "import sys\nwith open('/tmp/big', 'wb') as f:\n    for _ in range(64):\n        f.write(b'x' * 65536)\nprint('WROTE')\n",
      javascript:
        "const fs = require('fs');\nconst fd = fs.openSync('/tmp/big', 'w');\nfor (let i = 0; i < 64; i++) fs.writeSync(fd, Buffer.alloc(65536, 1));\nconsole.log('WROTE');\n",
      cpp: '#include <cstdio>\n#include <vector>\nint main() { std::FILE* f = std::fopen("/tmp/big", "wb"); std::vector<char> b(65536, 1); for (int i = 0; i < 64; i++) if (std::fwrite(b.data(), 1, b.size(), f) != b.size()) { std::perror("write"); return 4; } if (std::fclose(f)) { std::perror("close"); return 4; } std::puts("WROTE"); }\n',
    },
    {
      name: 'reading stdin forever',
      expect: ['timeout'],
      python: 'import sys\nwhile True:\n    sys.stdin.read()\n',
      javascript: "const fs = require('fs');\nconst b = Buffer.alloc(1024);\nfor (;;) { try { fs.readSync(0, b, 0, 1024, null); } catch (e) {} }\n",
      cpp: '#include <unistd.h>\nint main() { char b[1024]; for (;;) read(0, b, sizeof b); }\n',
    },
    {
      name: 'killing its parent',
      expect: ['runtime_error', 'wrong_output'],
      python: "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nos.kill(-1, signal.SIGKILL)\nprint('survived')\n",
      javascript:
        "try { process.kill(process.ppid, 'SIGKILL'); } catch (e) { console.error(e.code); }\ntry { process.kill(-1, 'SIGKILL'); } catch (e) { console.error(e.code); }\nconsole.log('survived');\n",
      cpp: '#include <signal.h>\n#include <unistd.h>\n#include <cstdio>\nint main() { kill(getppid(), SIGKILL); kill(-1, SIGKILL); std::puts("survived"); }\n',
    },
    {
      name: 'a very long single line',
      expect: ['output_limit'],
      python: "import sys\nsys.stdout.write('z' * (20 * 1024 * 1024))\n",
      javascript: "process.stdout.write('z'.repeat(20 * 1024 * 1024));\n",
      cpp: "#include <string>\n#include <cstdio>\nint main() { std::string s(20 << 20, 'z'); std::fwrite(s.data(), 1, s.size(), stdout); }\n",
    },
    {
      // the run would pin 1.5 GiB of host memory in a tmpfs of its own under a 1 GiB limit
      name: 'a user namespace with its own tmpfs, filled past the memory limit',
      expect: ['runtime_error'],
      reason: /Operation not permitted/,
      limits: { time_ms: 20_000 },
      python:
        "import ctypes, os, sys\nlibc = ctypes.CDLL(None, use_errno=True)\nuid, gid = os.getuid(), os.getgid()\nif libc.unshare(0x10000000 | 0x00020000) != 0:\n    sys.exit('unshare: ' + os.strerror(ctypes.get_errno()))\nopen('/proc/self/setgroups', 'w').write('deny')\nopen('/proc/self/uid_map', 'w').write('0 %d 1' % uid)\nopen('/proc/self/gid_map', 'w').write('0 %d 1' % gid)\nif libc.mount(b'none', b'/tmp', b'tmpfs', 0, b'size=2g') != 0:\n    sys.exit('mount: ' + os.strerror(ctypes.get_errno()))\nchunk = b'x' * (16 << 20)\nfor i in range(96):\n    with open('/tmp/f%d' % i, 'wb') as f:\n        f.write(chunk[:-1])\nprint('ok')\n",
      javascript:
        "const { execFileSync } = require('child_process');\ntry {\n  execFileSync('unshare', ['-Urm', 'sh', '-c', 'mount -t tmpfs -o size=2g none /tmp && i=0 && while [ $i -lt 96 ]; do head -c 16777215 /dev/zero > /tmp/f$i || exit 1; i=$((i+1)); done && echo ok'], { stdio: ['ignore', 'inherit', 'inherit'] });\n} catch (e) {\n  console.error('unshare refused, status ' + e.status);\n  process.exit(3);\n}\n",
      cpp: '#include <sched.h>\n#include <sys/mount.h>\n#include <unistd.h>\n#include <cstdio>\n#include <cstring>\n#include <cerrno>\n#include <string>\nstatic void put(const char* p, const std::string& s) { FILE* f = std::fopen(p, "w"); if (f) { std::fputs(s.c_str(), f); std::fclose(f); } }\nint main() { unsigned u = getuid(), g = getgid(); if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) { std::fprintf(stderr, "unshare: %s\\n", std::strerror(errno)); return 3; } put("/proc/self/setgroups", "deny"); put("/proc/self/uid_map", "0 " + std::to_string(u) + " 1"); put("/proc/self/gid_map", "0 " + std::to_string(g) + " 1"); if (mount("none", "/tmp", "tmpfs", 0, "size=2g") != 0) { std::perror("mount"); return 3; } std::string chunk((16 << 20) - 1, \'x\'); for (int i = 0; i < 96; i++) { FILE* f = std::fopen(("/tmp/f" + std::to_string(i)).c_str(), "w"); if (!f) return 3; std::fwrite(chunk.data(), 1, chunk.size(), f); std::fclose(f); } std::puts("ok"); }\n',
    },
    {
      // SysV segments outlive the processes that touched them and are counted by no rlimit
      name: 'SysV shared memory left behind by its processes',
      expect: ['runtime_error'],
      reason: /Operation not permitted/,
      limits: { time_ms: 20_000 },
      python:
        "import ctypes, os, sys\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.shmat.restype = ctypes.c_void_p\nfor i in range(3):\n    sid = libc.shmget(0, 512 << 20, 0o1600)\n    if sid < 0:\n        sys.exit('shmget: ' + os.strerror(ctypes.get_errno()))\n    p = libc.shmat(sid, None, 0)\n    ctypes.memset(p, 1, 512 << 20)\n    libc.shmdt(ctypes.c_void_p(p))\nprint('ok')\n",
      javascript:
        "const { execFileSync } = require('child_process');\ntry {\n  for (let i = 0; i < 3; i++) execFileSync('ipcmk', ['-M', String(512 << 20)], { stdio: ['ignore', 'ignore', 'inherit'] });\n} catch (e) {\n  process.exit(3);\n}\nconsole.log('ok');\n",
      cpp: '#include <sys/shm.h>\n#include <cstdio>\n#include <cstring>\nint main() { for (int i = 0; i < 3; i++) { int id = shmget(IPC_PRIVATE, 512 << 20, IPC_CREAT | 0600); if (id < 0) { std::perror("shmget"); return 3; } void* p = shmat(id, nullptr, 0); std::memset(p, 1, 512 << 20); shmdt(p); } std::puts("ok"); }\n',
    },
    {
      // each child is within the per-process limit; together they would hold 2 GB
      name: 'ten children holding 200 MiB each',
      // bounded either way: OOM kills in the run's cgroup, or (node children, whose code pages the
      // kernel keeps reclaiming under the bound) a crawl until the time limit
      expect: ['runtime_error', 'timeout'],
      expectWithoutCgroup: ['pass'],
      // the probe sums the anonymous resident memory of the children still alive once all have tried
      reason: /held \d+ MiB|wall-clock limit/,
      limits: { time_ms: 15_000 },
      python:
        "import os, sys\nr, w = os.pipe()\nhold_r, hold_w = os.pipe()\npids = []\nfor i in range(10):\n    pid = os.fork()\n    if pid == 0:\n        os.close(r); os.close(hold_w)\n        try:\n            b = bytearray(200 << 20)\n            for j in range(0, len(b), 4096):\n                b[j] = 1\n        except MemoryError:\n            pass\n        os.close(w)\n        os.read(hold_r, 1)\n        os._exit(0)\n    pids.append(pid)\nos.close(w); os.close(hold_r)\nwhile os.read(r, 1):\n    pass\nheld = 0\nfor pid in pids:\n    for line in open('/proc/%d/status' % pid):\n        if line.startswith('RssAnon:'):\n            held += int(line.split()[1]) // 1024\nif held > 1100:\n    print('ok')\nelse:\n    sys.exit('held %d MiB' % held)\n",
      javascript:
        "const { spawn } = require('child_process');\nconst fs = require('fs');\nconst kids = [];\nlet pending = 10;\nconst rss = (pid) => { try { const m = /RssAnon:\\s+(\\d+)/.exec(fs.readFileSync('/proc/' + pid + '/status', 'utf8')); return m ? Number(m[1]) >> 10 : 0; } catch (e) { return 0; } };\nconst done = () => {\n  if (--pending > 0) return;\n  const held = kids.reduce((a, c) => a + rss(c.pid), 0);\n  if (held > 1100) { console.log('ok'); process.exit(0); }\n  console.error('held ' + held + ' MiB');\n  process.exit(3);\n};\nfor (let i = 0; i < 10; i++) {\n  const c = spawn(process.execPath, ['-e', \"const b = Buffer.alloc(200 * 1024 * 1024, 1); process.stdout.write('x'); setInterval(() => b, 1000);\"], { stdio: ['ignore', 'pipe', 'ignore'] });\n  kids.push(c);\n  let settled = false;\n  const settle = () => { if (!settled) { settled = true; done(); } };\n  c.stdout.once('data', settle);\n  c.on('exit', settle);\n}\n",
      cpp: '#include <unistd.h>\n#include <sys/types.h>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\nint main() { int r[2], h[2]; pipe(r); pipe(h); pid_t pids[10]; for (int i = 0; i < 10; i++) { pids[i] = fork(); if (pids[i] == 0) { close(r[0]); close(h[1]); char* p = (char*)std::malloc(200u << 20); if (p) { std::memset(p, 1, 200u << 20); asm volatile("" : : "r"(p) : "memory"); } close(r[1]); char c; read(h[0], &c, 1); _exit(0); } } close(r[1]); close(h[0]); char c; while (read(r[0], &c, 1) > 0) {} long held = 0; for (int i = 0; i < 10; i++) { char path[64]; std::snprintf(path, sizeof path, "/proc/%d/status", (int)pids[i]); FILE* f = std::fopen(path, "r"); if (!f) continue; char line[256]; while (std::fgets(line, sizeof line, f)) if (!std::strncmp(line, "RssAnon:", 8)) held += std::atol(line + 8) / 1024; std::fclose(f); } if (held > 1100) { std::puts("ok"); return 0; } std::fprintf(stderr, "held %ld MiB\\n", held); return 3; }\n',
    },
    {
      name: 'writing to every file system it can see',
      expect: ['runtime_error'],
      reason: /no space|tmp full/i,
      python:
        "import sys\nwrote = []\nfor d in ['/', '/dev', '/dev/shm', '/usr', '/etc', '/proc']:\n    try:\n        open(d.rstrip('/') + '/arbiter_probe', 'w').write('x')\n        wrote.append(d)\n    except OSError:\n        pass\nif wrote:\n    print('ESCAPED', wrote)\n    sys.exit(0)\ntry:\n    for i in range(64):\n        open('/tmp/fill%d' % i, 'wb').write(b'x' * (8 << 20))\nexcept OSError as e:\n    sys.exit('tmp full: ' + e.strerror)\nprint('ok')\n",
      javascript:
        "const fs = require('fs');\nconst wrote = [];\nfor (const d of ['/', '/dev', '/dev/shm', '/usr', '/etc', '/proc']) { try { fs.writeFileSync(d.replace(/\\/$/, '') + '/arbiter_probe', 'x'); wrote.push(d); } catch (e) {} }\nif (wrote.length) { console.log('ESCAPED', wrote); process.exit(0); }\ntry { for (let i = 0; i < 64; i++) fs.writeFileSync('/tmp/fill' + i, Buffer.alloc(8 << 20, 1)); } catch (e) { console.error('tmp full: ' + e.code + ' no space'); process.exit(3); }\nconsole.log('ok');\n",
      cpp: '#include <cstdio>\n#include <cerrno>\n#include <cstring>\n#include <string>\n#include <vector>\nint main() { const char* ds[] = {"", "/dev", "/dev/shm", "/usr", "/etc", "/proc"}; int wrote = 0; for (auto d : ds) { FILE* f = std::fopen((std::string(d) + "/arbiter_probe").c_str(), "w"); if (f) { std::fclose(f); wrote++; std::printf("ESCAPED %s\\n", d); } } if (wrote) return 0; std::vector<char> b(8 << 20, \'x\'); for (int i = 0; i < 64; i++) { FILE* f = std::fopen(("/tmp/fill" + std::to_string(i)).c_str(), "w"); if (!f) { std::fprintf(stderr, "tmp full: %s\\n", std::strerror(errno)); return 3; } size_t n = std::fwrite(b.data(), 1, b.size(), f); int e = errno; if (std::fclose(f) != 0 || n != b.size()) { std::fprintf(stderr, "tmp full: %s\\n", std::strerror(e ? e : ENOSPC)); return 3; } } std::puts("ok"); }\n',
    },
  ];
}
