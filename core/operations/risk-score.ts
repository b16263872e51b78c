import { z } from 'zod'
import {
  entityHash,
  inputHash,
  nameIdentity,
  runCompanyCheck,
  runTiered,
  sanctionsCoverageOf,
} from '../checks/index.ts'
import { ServiceError } from '../errors.ts'
import { PRICES } from '../payments/pricing.ts'
import { countryRisk, riskLevelForScore } from '../reference/index.ts'
import { entityRiskOf } from '../scoring/index.ts'
import { countrySchema, entityNameSchema } from '../validate/index.ts'
import {
  CheckEnvelopeFields,
  mockFields,
  SourceStatusSchema,
  sanctionsCoverageField,
} from './common-schemas.ts'
import { defineOperation } from './define.ts'
import { RiskFactor } from './entity-check.ts'
import { companyCheckDeps, type OperationContext } from './operation-context.ts'
import { nameScreenNotReady, REGISTER_PART, registerNotReady, SANCTIONS_PART } from './readiness.ts'
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
  risk_factors: z
    .array(RiskFactor)
    .optional()
    .describe('Findings; here weight is the risk points a finding added (positive raises risk)'),
  confidence: z.number().min(0).max(1).optional().describe('0-1: share of the evidence that was obtained'),
  sources: z.array(SourceStatusSchema).optional().describe('Every source called, with its status'),
  ...sanctionsCoverageField,
  ...CheckEnvelopeFields,
  ...mockFields,
})

/** Risk level bands, the same as the country risk's (0-24 low, 25-49 medium, 50-79 high, 80+ very_high). */
export function riskLevelOf(score: number): 'low' | 'medium' | 'high' | 'very_high' {
  return riskLevelForScore(score)
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

/**
 * The real risk score (spec: POST /v1/risk/score; METHODOLOGY.md "Risk score"): country risk
 * and sanctions screening, plus a register search by name in the enhanced tier.
 */
export async function runRiskScore(
  input: z.infer<typeof RiskScoreInput>,
  ctx: OperationContext<'checks' | 'companySources' | 'sanctions'>,
) {
  return runTiered<z.infer<typeof RiskScoreResult>>(ctx, {
    operation: 'risk_score',
    entityHash: entityHash(nameIdentity(input.entity_name, input.country)),
    inputHash: inputHash('risk_score', input),
    input,
    run: async (tier) => {
      const country = countryRisk(input.country)
      if (!country) throw new ServiceError('validation_failed', 'unknown country')
      const outcome = await runCompanyCheck(
        {
          entity_name: input.entity_name,
          country: input.country,
          search_register_by_name: tier === 'enhanced',
          enhanced: false,
          sanctions_match: tier === 'enhanced' ? 'fuzzy' : 'exact',
        },
        companyCheckDeps(ctx),
      )
      const sanctions = outcome.assessments.find((a) => a.role === 'sanctions')
      if (!sanctions) throw new Error('company check returned no sanctions assessment')
      const register =
        tier === 'enhanced' ? outcome.assessments.find((a) => a.role === 'register') : undefined
      const risk = entityRiskOf(country, sanctions, register)
      return {
        risk_score: risk.risk_score,
        risk_level: risk.risk_level,
        entity_name: input.entity_name,
        country: input.country,
        risk_factors: risk.risk_factors,
        confidence: risk.confidence,
        sources: outcome.trust.sources.filter(
          (source) =>
            tier === 'enhanced' || source.source === 'sanctions' || source.source === 'country_risk',
        ),
        ...sanctionsCoverageOf(outcome),
      }
    },
  })
}

export const riskScore = defineOperation({
  id: 'risk_score',
  http: { method: 'POST', path: '/v1/risk/score' },
  summary: 'Risk score of an entity from sanctions and country risk',
  description:
    'risk_score 0-100 (higher is riskier) from the country risk lists and a sanctions screen; enhanced adds a register search by name (NL). Quality tiers: cached, fresh, enhanced.',
  input: RiskScoreInput,
  output: RiskScoreResult,
  price: PRICES.risk_score,
  essentials: {
    parts: [SANCTIONS_PART, { ...REGISTER_PART, when: 'enhanced tier, NL (KVK search by name)' }],
    check: async (input, deps, quality) => [
      ...nameScreenNotReady(deps),
      ...(await registerNotReady(deps, {
        kvk: quality === 'enhanced' && input.country === 'NL',
        kbo: false,
      })),
    ],
  },
  ports: ['checks', 'companySources', 'sanctions'],
  access: { sandbox: 'mock' },
  openWorld: true,
  mock: mockRiskScore,
  run: runRiskScore,
})
