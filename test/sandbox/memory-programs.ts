// The total-memory probe shared by the cold (sandbox.test.ts) and warm (warm.test.ts) paths: one
// program, one set of limits and one bound check, so both paths are held to the same assertion.
import { expect } from 'vitest';
import type { RunResult } from '../../dist/sandbox/index.js';
import { DEFAULT_LIMITS, rlimitMemoryBound } from '../../dist/sandbox/limits.js';

// ten children each touch 200 MiB and hold it; once all have tried, the parent sums the
// anonymous resident memory of those still alive
export const MEMORY_CHILDREN = String.raw`
import os
r, w = os.pipe()
hold_r, hold_w = os.pipe()
pids = []
for i in range(10):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.close(r); os.close(hold_w)
        try:
            b = bytearray(200 * 1024 * 1024)
            for j in range(0, len(b), 4096):
                b[j] = 1
        except MemoryError:
            pass
        os.close(w)
        os.read(hold_r, 1)
        os._exit(0)
    pids.append(pid)
os.close(w)
os.close(hold_r)
while os.read(r, 1):
    pass
held = 0
for pid in pids:
    for line in open('/proc/%d/status' % pid):
        if line.startswith('RssAnon:'):
            held += int(line.split()[1]) * 1024
print(held)
`;

export const MEMORY_CHILDREN_LIMITS = { memoryBytes: 256 * 1024 * 1024, processes: 8, wallMs: 30_000 };

/** The run of MEMORY_CHILDREN held some memory, and no more than the pool's memory control allows. */
export function expectHeldWithinBound(r: RunResult, memoryControl: string): void {
  expect(r.status, r.stderr).toBe('ok');
  const held = Number(r.stdout.trim());
  const all = { ...DEFAULT_LIMITS, ...MEMORY_CHILDREN_LIMITS };
  const bound = memoryControl.startsWith('cgroup') ? all.memoryBytes + all.tmpBytes : rlimitMemoryBound(all);
  expect(held, `${memoryControl}: ${r.stdout}`).toBeLessThanOrEqual(bound);
  expect(held).toBeGreaterThan(0);
}
