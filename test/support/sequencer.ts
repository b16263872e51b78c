import path from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Without timings from an earlier run: fault suites are the longest, then e2e, then unit tests. */
const PROJECT_WEIGHT: Record<string, number> = { faults: 2, e2e: 1 }

/**
 * Starts the longest test files first, so the last minute is not one long file running alone: by
 * the duration of the previous run when the cache has one, else by kind (faults, e2e, unit) and
 * size. Shards as vitest does.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache
    const root = this.ctx.config.root
    const key = (spec: TestSpecification) => `${spec.project.name}:${path.relative(root, spec.moduleId)}`
    const known = files.every((spec) => cache.getFileTestResults(key(spec)))
    const weight = (spec: TestSpecification): number => {
      if (known) return cache.getFileTestResults(key(spec))?.duration ?? 0
      const size = cache.getFileStats(key(spec))?.size ?? 0
      return (PROJECT_WEIGHT[spec.project.name] ?? 0) * 1e9 + size
    }
    return [...files].sort((a, b) => weight(b) - weight(a))
  }
}
