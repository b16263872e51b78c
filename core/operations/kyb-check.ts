import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { countrySchema, domainSchema, entityNameSchema, vatNumberSchema } from '../validate/index.ts'
import { mockFields } from './common-schemas.ts'
import { defineOperation } from './define.ts'
import { MOCK_MARKER, mockSeed } from './sandbox-mock.ts'

/** spec: POST /v1/kyb/check request. */
export const KybCheckInput = z
  .object({
    entity_id: z.string().min(1).max(128).describe('Your own reference for the entity'),
    registration_number: z.string().min(1).max(64).describe('Register number (KVK for NL, CBE for BE)'),
    country: countrySchema.describe('ISO 3166-1 alpha-2, exactly 2 characters'),
    entity_name: entityNameSchema.optional().describe('Legal name, used for sanctions screening'),
    vat_number: vatNumberSchema.optional().describe('EU VAT number for VIES'),
    domain: domainSchema.optional().describe('Bare hostname'),
  })
  .strict()

export const KybCheckResult = z.object({
  verified: z.boolean().describe('Register verified and no sanctions flag'),
  register_verified: z.boolean().describe('The register knows this number as an active company'),
  register_checked: z.string().describe('Which register was consulted'),
  sanctions_flagged: z.boolean().describe('A sanctions list matched the entity name'),
  kyb_status: z.string().describe('verified, review or failed'),
  trust_score: z.number().int().min(0).max(100).describe('0-100, 100 best'),
  ...mockFields,
})

export function mockKybCheck(input: z.infer<typeof KybCheckInput>): z.infer<typeof KybCheckResult> {
  const random = mockSeed(input.entity_id, input.registration_number, input.country)
  const registerVerified = random('register') > 0.15
  const trust = registerVerified
    ? 60 + Math.floor(random('trust') * 40)
    : 20 + Math.floor(random('trust') * 30)
  return {
    verified: registerVerified,
    register_verified: registerVerified,
    register_checked: input.country === 'NL' ? 'KVK' : input.country === 'BE' ? 'KBO' : 'none',
    sanctions_flagged: false,
    kyb_status: registerVerified ? 'verified' : 'review',
    trust_score: trust,
    ...MOCK_MARKER,
  }
}

export const kybCheck = defineOperation({
  id: 'kyb_check',
  http: { method: 'POST', path: '/v1/kyb/check' },
  summary: 'Know-your-business check: register, VIES and sanctions',
  input: KybCheckInput,
  output: KybCheckResult,
  price: null,
  access: { sandbox: 'mock', minTier: 'pro', sandboxOnly: true },
  mock: mockKybCheck,
  run: async () => {
    throw new ServiceError('forbidden', 'real KYB checks are not available yet; use a sandbox key')
  },
})
