import { configDefaults, defineConfig } from 'vitest/config'
import { realListsPresent, realListTestFiles, sanctionsDataDir } from './test/support/real-list-tests.ts'
import { LongestFirstSequencer } from './test/support/sequencer.ts'

/**
 * What every project shares (the global setup runs once, at the root). `unstubEnvs`: a variable a
 * test sets with `vi.stubEnv` is restored after it, since test files share worker threads.
 */
const shared = { testTimeout: 30_000, hookTimeout: 60_000, unstubEnvs: true } as const

/**
 * Tests on the real OFAC, EU and UN list copies need those copies (SHARED_DIR, default ../shared;
 * CI has them). Where they are missing the other tests still run and the run names those it left
 * out; with CI=true nothing is left out, so a missing copy fails instead of passing unseen.
 */
const withoutRealLists = process.env.CI || realListsPresent() ? [] : realListTestFiles()
if (withoutRealLists.length > 0) {
  console.warn(
    `Not run: ${withoutRealLists.length} test files that read the real sanctions list copies, not found at ${sanctionsDataDir()} (set SHARED_DIR to the folder holding data/sanctions):\n  ${withoutRealLists.join('\n  ')}\n`,
  )
}
const exclude = [...configDefaults.exclude, ...withoutRealLists]

/**
 * Test files in flight: five, in worker threads (TEST_THREADS overrides). Most test time is
 * waiting (PGlite, child processes, sockets), so this 2-core machine keeps more files in flight
 * than it has cores; 6 ran the suite slower than 5 (more CPU contention).
 */
const threads = Number(process.env.TEST_THREADS ?? 5)

/**
 * Three projects, one per kind of test (docs/architecture.md, "Running tests"):
 * - unit: beside the code they test, in core/, http/, tools/, server/, client/ (and the checks of
 *   the test harness itself);
 * - e2e: test/e2e/, suites that boot the whole service, and the MCP conformance run (test/conformance/);
 * - faults: test/faults/, kill -9, outages, two processes, load: they start the service as child
 *   processes (from this run's bundles, test/support/entry-bundles.ts) and mostly wait on them.
 * All three share one pool of worker threads that keep their loaded modules from one file to the
 * next: importing the service graph (about 5 s of CPU in a fresh process) is most of a small
 * file's cost, and every suite builds its own service, database, fakes and child processes, so
 * nothing else carries over. The sequencer starts the longest files first.
 */
export default defineConfig({
  test: {
    ...shared,
    globalSetup: ['test/support/global-setup.ts'],
    // minThreads = maxThreads: vitest 3.2 terminates shared workers mid-file when the pool may
    // shrink (vitest-dev/vitest#8133).
    // --no-memory-protection-keys: on CPUs with memory protection keys (PKU), V8's tracking of
    // JIT/WebAssembly code pages races when many PGlite instances come and go across threads and
    // aborts the process (V8_Fatal in ThreadIsolation::UnregisterAllocation; nodejs/node#64500).
    // The npm test script starts vitest with the flag (a V8 flag is process-wide, so the worker
    // threads have it).
    poolOptions: {
      threads: { isolate: false, minThreads: threads, maxThreads: threads },
    },
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          pool: 'threads',
          include: [
            '{core,http,tools,server,client}/**/*.test.ts',
            'test/*.test.ts',
            'test/support/**/*.test.ts',
          ],
          exclude,
        },
      },
      {
        test: {
          ...shared,
          name: 'e2e',
          pool: 'threads',
          include: ['test/e2e/**/*.test.ts', 'test/conformance/**/*.test.ts'],
          exclude,
        },
      },
      {
        test: { ...shared, name: 'faults', pool: 'threads', include: ['test/faults/**/*.test.ts'], exclude },
      },
    ],
  },
})
