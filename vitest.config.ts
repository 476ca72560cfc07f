// Test runner config: tests import the built package from dist/ (npm test builds first),
// so worker threads and the CLI are exercised exactly as users run them. The host-features
// reporter prints one line counting the tests skipped for a missing optional host feature.
// Two workers even on a 2-core machine (vitest's default there is one): most of the suite waits on
// child processes (sandboxes, CLIs, servers, Redis), so a second file runs in that time.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './test/helpers/host-features.ts'],
  },
});
