// Hostile programs for the containment tests, in each language. Each entry says which failure
// the `code` grader must report (stdio format, one case expecting the output "ok").
import { homedir } from 'node:os';

export type Expect = 'timeout' | 'runtime_error' | 'output_limit' | 'wrong_output' | 'pass';

export interface Hostile {
  name: string;
  /** Acceptable failure kinds (metadata.failure), or 'pass' for programs that legitimately finish. */
  expect: Expect[];
  /** Grader limits for this program, when not the shared ones. */
  limits?: { time_ms?: number; memory_mb?: number };
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
      javascript: "const { spawn } = require('child_process');\nfor (;;) { try { spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']); } catch (e) {} }\n",
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
      javascript: "const { spawn } = require('child_process');\nspawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' }).unref();\nconsole.log('ok');\n",
      cpp: '#include <unistd.h>\n#include <cstdio>\nint main() { if (fork() == 0) { setsid(); for (;;) sleep(1000); } std::puts("ok"); return 0; }\n',
    },
    {
      name: 'network connect',
      expect: ['runtime_error'],
      python: "import socket\ns = socket.create_connection(('1.1.1.1', 80), timeout=3)\nprint('CONNECTED')\n",
      javascript: "const s = require('net').connect(80, '1.1.1.1', () => { console.log('CONNECTED'); process.exit(0); });\ns.on('error', (e) => { console.error(e.message); process.exit(2); });\n",
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
      cpp: '#include <cstdio>\n#include <string>\nint main() { std::string line(1023, \'y\'); line += \'\\n\'; for (int i = 0; i < 100 * 1024; i++) std::fwrite(line.data(), 1, line.size(), stdout); }\n',
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
      javascript: "try { process.kill(process.ppid, 'SIGKILL'); } catch (e) { console.error(e.code); }\ntry { process.kill(-1, 'SIGKILL'); } catch (e) { console.error(e.code); }\nconsole.log('survived');\n",
      cpp: '#include <signal.h>\n#include <unistd.h>\n#include <cstdio>\nint main() { kill(getppid(), SIGKILL); kill(-1, SIGKILL); std::puts("survived"); }\n',
    },
    {
      name: 'a very long single line',
      expect: ['output_limit'],
      python: "import sys\nsys.stdout.write('z' * (20 * 1024 * 1024))\n",
      javascript: "process.stdout.write('z'.repeat(20 * 1024 * 1024));\n",
      cpp: '#include <string>\n#include <cstdio>\nint main() { std::string s(20 << 20, \'z\'); std::fwrite(s.data(), 1, s.size(), stdout); }\n',
    },
  ];
}
