import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { countrySchema, entityNameSchema } from '../validate/index.ts'
import { mockFields } from './common-schemas.ts'
import { defineOperation } from './define.ts'
import { MOCK_MARKER, mockSeed } from './sandbox-mock.ts'

/** spec: POST /v1/risk/score request. */
export const RiskScoreInput = z
  .object({
    entity_name: entityNameSchema.describe('Legal name, 2-255 characters'),
    country: countrySchema.describe('ISO 3166-1 alpha-2, uppercase'),
  })
  .strict()

export const RiskScoreResult = z.object({
  risk_score: z.number().int().min(0).max(100).describe('0-100, higher is riskier'),
  risk_level: z.string().describe('low, medium, high or very_high'),
  entity_name: z.string(),
  country: z.string(),
  ...mockFields,
})

export function riskLevelOf(score: number): 'low' | 'medium' | 'high' | 'very_high' {
  if (score >= 80) return 'very_high'
  if (score >= 55) return 'high'
  if (score >= 30) return 'medium'
  return 'low'
}

export function mockRiskScore(input: z.infer<typeof RiskScoreInput>): z.infer<typeof RiskScoreResult> {
  const score = Math.floor(mockSeed(input.entity_name, input.country)('risk') * 70)
  return {
    risk_score: score,
    risk_level: riskLevelOf(score),
    entity_name: input.entity_name,
    country: input.country,
    ...MOCK_MARKER,
  }
}

export const riskScore = defineOperation({
  id: 'risk_score',
  http: { method: 'POST', path: '/v1/risk/score' },
  summary: 'Risk score of an entity from sanctions and country risk',
  input: RiskScoreInput,
  output: RiskScoreResult,
  price: null,
  access: { sandbox: 'mock', sandboxOnly: true },
  mock: mockRiskScore,
  run: async () => {
    throw new ServiceError('forbidden', 'real risk scores are not available yet; use a sandbox key')
  },
})
