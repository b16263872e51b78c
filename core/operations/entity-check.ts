import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import {
  cbeNumberSchema,
  countrySchema,
  domainSchema,
  entityNameSchema,
  ibanSchema,
  kvkNumberSchema,
  validateWalletForChain,
  vatNumberSchema,
  WALLET_CHAINS,
  walletAddressSchema,
} from '../validate/index.ts'
import { mockFields } from './common-schemas.ts'
import { defineOperation } from './define.ts'
import { MOCK_MARKER, mockSeed } from './sandbox-mock.ts'

/** spec: POST /v1/entity/check request. No other properties are allowed. */
export const EntityCheckInput = z
  .object({
    entity_name: entityNameSchema.describe('Legal name, 2-255 characters'),
    country: countrySchema.describe('ISO 3166-1 alpha-2, uppercase'),
    kvk_number: kvkNumberSchema.optional().describe('Dutch KVK number, 8 digits'),
    cbe_number: cbeNumberSchema.optional().describe('Belgian enterprise number, 0XXX.XXX.XXX or 10 digits'),
    domain: domainSchema.optional().describe('Bare hostname, no protocol, path or query'),
    iban: ibanSchema.optional().describe('IBAN without spaces, structurally validated'),
    vat_number: vatNumberSchema.optional().describe('EU VAT number with country prefix'),
    wallet_address: walletAddressSchema.optional().describe('EVM or Solana address; format check only'),
    wallet_chain: z.enum(WALLET_CHAINS).optional().describe('Chain of wallet_address; defaults to eth'),
    target_industries: z
      .array(z.string().min(1).max(100))
      .max(20)
      .optional()
      .describe('SBI/NACE prefixes or whole words; information only, never changes the score'),
    target_size: z
      .object({
        min: z.number().int().min(0).describe('Smallest employee count, inclusive'),
        max: z.number().int().min(0).describe('Largest employee count, inclusive'),
      })
      .strict()
      .refine((size) => size.min <= size.max, { message: 'min must not exceed max', path: ['min'] })
      .optional()
      .describe('Employee range; information only'),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.wallet_chain && !input.wallet_address) {
      ctx.addIssue({ code: 'custom', path: ['wallet_chain'], message: 'needs wallet_address' })
    }
    if (input.wallet_address) {
      const chain = input.wallet_chain ?? 'eth'
      const checked = validateWalletForChain(input.wallet_address, chain)
      if (!checked.ok) ctx.addIssue({ code: 'custom', path: ['wallet_address'], message: checked.message })
    }
  })

export const RiskFactor = z
  .object({
    factor: z.string().describe('What was found'),
    source: z.string().describe('Where it was found'),
    severity: z.enum(['info', 'low', 'medium', 'high', 'critical']).describe('How much it matters'),
    weight: z.number().describe('Points this factor moved the trust score (negative lowers it)'),
    evidence: z.string().describe('The finding itself'),
  })
  .describe('One finding behind the score, with its source')

export const EntityCheckResult = z.object({
  trust_score: z.number().int().min(0).max(100).describe('0-100, 100 best'),
  cluster: z.string().describe('Risk cluster'),
  recommendation: z.string().describe('What to do with this entity'),
  sources_checked: z.number().int().min(0).describe('Sources that answered'),
  entity_name: z.string(),
  country: z.string(),
  risk_factors: z.array(RiskFactor),
  ...mockFields,
})

/** The sandbox answer: deterministic per input, clearly marked as mock. */
export function mockEntityCheck(input: z.infer<typeof EntityCheckInput>): z.infer<typeof EntityCheckResult> {
  const random = mockSeed(input.entity_name, input.country, input.kvk_number, input.cbe_number)
  const trust = 40 + Math.floor(random('trust') * 60)
  const cluster = trust >= 80 ? 'low_risk' : trust >= 60 ? 'moderate_risk' : 'elevated_risk'
  const recommendation = trust >= 80 ? 'approve' : trust >= 60 ? 'approve_with_monitoring' : 'manual_review'
  const sources =
    3 +
    ['kvk_number', 'cbe_number', 'domain', 'iban', 'vat_number', 'wallet_address'].filter(
      (field) => input[field as keyof typeof input] !== undefined,
    ).length
  return {
    trust_score: trust,
    cluster,
    recommendation,
    sources_checked: sources,
    entity_name: input.entity_name,
    country: input.country,
    risk_factors: [
      {
        factor: 'mock_finding',
        source: 'sandbox',
        severity: 'info',
        weight: 0,
        evidence: 'Sandbox data: no register, sanctions or domain source was consulted.',
      },
    ],
    ...MOCK_MARKER,
  }
}

export const entityCheck = defineOperation({
  id: 'entity_check',
  http: { method: 'POST', path: '/v1/entity/check' },
  summary: 'Full entity trust check: registers (KVK/CBE), sanctions, country risk, domain, IBAN, EU VAT',
  input: EntityCheckInput,
  output: EntityCheckResult,
  price: null,
  access: { sandbox: 'mock', sandboxOnly: true },
  mock: mockEntityCheck,
  run: async () => {
    throw new ServiceError('forbidden', 'real entity checks are not available yet; use a sandbox key')
  },
})
