// A vitest reporter for tests that need an optional host feature (a memory cgroup, the native
// helpers, root…). Such a test says so in its name, "(needs FEATURE)", and where the feature is
// missing it skips at run time with a note, `ctx.skip('why')`: never a silent pass (the note tells
// such a skip from a test left out by -t or .only). At the end of the run this prints one line, e.g.
//   optional host features: 2 tests skipped (a memory cgroup: 2); 5 that need one ran
import type { Reporter, TestModule } from 'vitest/node';

const NEEDS = /\(needs ([^)]+)\)/;

export default class HostFeatures implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped = new Map<string, number>();
    let ran = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const feature = NEEDS.exec(t.fullName)?.[1];
        if (feature === undefined) continue;
        const r = t.result();
        if (r.state === 'skipped' && r.note) skipped.set(feature, (skipped.get(feature) ?? 0) + 1);
        else if (r.state === 'passed' || r.state === 'failed') ran++;
      }
    }
    const n = [...skipped.values()].reduce((a, b) => a + b, 0);
    if (n === 0 && ran === 0) return;
    const list = [...skipped].map(([f, k]) => `${f}: ${k}`).join(', ');
    const head = n === 0 ? 'optional host features: none missing, 0 tests skipped' : `optional host features: ${n} test${n === 1 ? '' : 's'} skipped (${list})`;
    process.stdout.write(`\n${head}; ${ran} that need one ran\n`);
  }
}
