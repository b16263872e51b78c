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
 * Test files in flight: `workers` forks for the fault suites and one more thread for the unit and
 * e2e files, which share the thread pool and spend much of their time waiting on sockets, child
 * processes and databases (TEST_WORKERS overrides; docs/architecture.md, "Running tests"). On this
 * 2-core machine, 3 forks and 3 threads ran the suite slower than 2 and 3 (more CPU contention).
 */
const workers = Number(process.env.TEST_WORKERS ?? 2)
const threads = workers + 1

/**
 * Three projects, one per kind of test (docs/architecture.md, "Running tests"):
 * - unit: beside the code they test, in core/, http/, tools/, server/, client/ (and the checks of
 *   the test harness itself);
 * - e2e: test/e2e/, suites that boot the whole service, and the MCP conformance run (test/conformance/).
 *   Both in worker threads that keep their loaded modules from one file to the next: importing
 *   the service graph (about 5 s of CPU in a fresh process) is most of a small file's cost, and
 *   every suite builds its own service, database and fakes, so nothing else carries over.
 * - faults: test/faults/, kill -9, outages, two processes, load: one fresh child process per
 *   file. These mostly wait on the processes they start (from this run's bundles,
 *   test/support/entry-bundles.ts), so they run beside the threads. In the threads with the
 *   others (five threads, one process) they used about 40 CPU-s less per run, but V8 aborted the
 *   process in one full run of three (the WebAssembly code-page bookkeeping below, with the flag
 *   set): the more PGlite instances come and go in one process, the likelier.
 * The two pools run at the same time; the sequencer starts the longest files first.
 */
export default defineConfig({
  test: {
    ...shared,
    globalSetup: ['test/support/global-setup.ts'],
    // Most test time is waiting (PGlite, child processes, sockets), so a 2-core machine keeps
    // more files in flight than it has cores. minThreads = maxThreads: vitest 3.2 terminates
    // shared workers mid-file when the pool may shrink (vitest-dev/vitest#8133).
    // --no-memory-protection-keys: on CPUs with memory protection keys (PKU), V8's tracking of
    // JIT/WebAssembly code pages races when many PGlite instances come and go across threads and
    // aborts the process (V8_Fatal in ThreadIsolation::UnregisterAllocation; nodejs/node#64500).
    // The npm test script starts vitest with the flag (a V8 flag is process-wide, so the worker
    // threads have it); the forks get it here.
    poolOptions: {
      threads: { isolate: false, minThreads: threads, maxThreads: threads },
      forks: {
        isolate: true,
        minForks: workers,
        maxForks: workers,
        execArgv: ['--no-memory-protection-keys'],
      },
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
        test: { ...shared, name: 'faults', pool: 'forks', include: ['test/faults/**/*.test.ts'], exclude },
      },
    ],
  },
})
