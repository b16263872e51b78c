import { describe, expect, it } from 'vitest'
import type { CompanySources } from '../checks/company-sources.ts'
import { systemClock } from '../context.ts'
import { createLeadBatchVerifier } from './lead-verifier.ts'

describe('lead batch verifier', () => {
  it('asks each source at most `concurrency` at once and each distinct number once', async () => {
    let active = 0
    let maxActive = 0
    const asked: string[] = []
    const kvk = {
      async lookupCompany(number: string) {
        asked.push(number)
        active++
        maxActive = Math.max(maxActive, active)
        await new Promise((resolve) => setImmediate(resolve))
        active--
        return {
          source: 'kvk',
          status: 'unavailable' as const,
          reason: 'timeout',
          fetched_at: new Date().toISOString(),
          latency_ms: 0,
        }
      },
    }
    const verifier = createLeadBatchVerifier({
      sources: { kvk } as unknown as CompanySources,
      clock: systemClock,
      concurrency: 3,
    })
    const numbers = Array.from({ length: 20 }, (_, i) => String(10000000 + (i % 10)))
    const results = await Promise.all(
      numbers.map((kvk_number) => verifier.verify({ country: 'NL', kvk_number })),
    )
    expect(maxActive).toBe(3)
    expect(asked).toHaveLength(10)
    expect(verifier.stats()).toEqual({ calls: { kvk: 10 }, deduplicated: 10 })
    // The register did not answer: never proceed, never a point for it.
    for (const result of results) {
      expect(result.verdict).toBe('review')
      expect(result.checks.find((c) => c.check === 'register')?.status).toBe('unavailable')
      expect(result.lead_score).toBe(20)
    }
  })
})
