import { afterAll, bench, describe } from 'vitest'
import {
  createSourcesForFakes,
  entityCheckFanOut,
  startAllFakes,
} from '../test/support/fakes/start-all-fakes.ts'

// Run with `npm run bench:fan-out`. Every fake answers after
// 200 ms: a parallel fan-out costs about 200 ms, a sequential one about 1 s.
const fakes = await startAllFakes({ delayMs: 200 })
const sources = await createSourcesForFakes(fakes)
await entityCheckFanOut(sources) // caches the RDAP bootstrap, as in steady state

afterAll(async () => {
  await fakes.close()
})

describe('entity check source fan-out, fakes at 200 ms per answer', () => {
  bench(
    'six sources in parallel',
    async () => {
      const results = await entityCheckFanOut(sources)
      const failed = Object.values(results).filter((r) => r.status !== 'ok')
      if (failed.length > 0) throw new Error(`sources failed: ${JSON.stringify(failed)}`)
    },
    { iterations: 10, time: 0, warmupIterations: 1 },
  )
})
