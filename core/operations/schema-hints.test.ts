import { describe, expect, it } from 'vitest'
import { toJsonSchema } from './json-schema.ts'
import { KybCheckInput } from './kyb-check.ts'
import { ReputationScoreInput } from './reputation-score.ts'

/** Conditional requirements and formats are in the schema, not only in prose. */
describe('input schemas an agent can act on', () => {
  it('states that reputation_score needs country unless trust_score and cluster are sent', () => {
    expect(toJsonSchema(ReputationScoreInput, 'input').anyOf).toEqual([
      { required: ['country'] },
      { required: ['trust_score', 'cluster'] },
    ])
    // The runtime rule is the same one.
    expect(ReputationScoreInput.safeParse({ entity_name: 'Acme BV' }).success).toBe(false)
    expect(
      ReputationScoreInput.safeParse({ entity_name: 'Acme BV', trust_score: 80, cluster: 'low_risk' })
        .success,
    ).toBe(true)
  })

  it('gives kyb_check.registration_number its formats per country, with examples', () => {
    const field = (toJsonSchema(KybCheckInput, 'input').properties as Record<string, Record<string, unknown>>)
      .registration_number
    expect(field?.examples).toEqual(['69599084', '0403.170.701'])
    expect(String(field?.description)).toMatch(
      /NL: KVK number, 8 digits.*BE: CBE\/KBO enterprise number, 10 digits/,
    )
  })
})
