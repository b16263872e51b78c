import { z } from 'zod'
import {
  entityHash,
  inputHash,
  registrationIdentity,
  runCompanyCheck,
  runTiered,
  sanctionsCoverageOf,
} from '../checks/index.ts'
import { PRICES } from '../payments/pricing.ts'
import {
  countrySchema,
  domainSchema,
  entityNameSchema,
  validateDomain,
  validateVatNumber,
  vatNumberSchema,
} from '../validate/index.ts'
import {
  CheckEnvelopeFields,
  mockFields,
  recommendationReasonsField,
  SourceStatusSchema,
  sanctionsCoverageField,
} from './common-schemas.ts'
import { defineOperation } from './define.ts'
import { RiskFactor } from './entity-check.ts'
import { companyCheckDeps, type OperationContext } from './operation-context.ts'
import { nameScreenNotReady, REGISTER_PART, registerNotReady, SANCTIONS_PART } from './readiness.ts'
import { MOCK_MARKER, mockSeed } from './sandbox-mock.ts'

/** spec: POST /v1/kyb/check request. */
export const KybCheckInput = z
  .object({
    entity_id: z.string().min(1).max(128).describe('Your own reference for the entity'),
    registration_number: z
      .string()
      .min(1)
      .max(64)
      .describe(
        'Register number. NL: KVK number, 8 digits (69599084). BE: CBE/KBO enterprise number, 10 digits starting with 0 or 1, dots and spaces optional (0403.170.701 or 0403170701). Other countries: no register is consulted (register_checked none).',
      )
      .meta({ examples: ['69599084', '0403.170.701'] }),
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
  entity_id: z.string().optional().describe('Your reference, as sent'),
  sanctions_status: z
    .enum(['ok', 'partial', 'unavailable'])
    .optional()
    .describe(
      'ok: every promised list was screened; partial: some lists were not (see sanctions_coverage), never clean; unavailable: not screened, never clean',
    ),
  ...sanctionsCoverageField,
  cluster: z.string().optional().describe('Risk cluster of the trust score'),
  recommendation: z.string().optional().describe('What to do with this entity'),
  ...recommendationReasonsField,
  confidence: z.number().min(0).max(1).optional().describe('0-1: share of the evidence that was obtained'),
  sources_checked: z.number().int().min(0).optional().describe('Sources that answered'),
  sources: z.array(SourceStatusSchema).optional().describe('Every source called, with its status'),
  risk_factors: z.array(RiskFactor).optional().describe('Findings behind the trust score'),
  register_profile: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Enhanced tier: register details and the VIES name'),
  ...CheckEnvelopeFields,
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

/** Trust score a KYB needs for `verified` (METHODOLOGY.md "KYB"). */
export const KYB_VERIFIED_MIN_TRUST = 60

/**
 * The real KYB check (spec: POST /v1/kyb/check): the register by number (KVK for NL, KBO for
 * BE), VIES, sanctions (the given name, else the register's names; all register names in the
 * enhanced tier), domain, country risk; the same scoring as the entity check.
 */
export async function runKybCheck(
  input: z.infer<typeof KybCheckInput>,
  ctx: OperationContext<'checks' | 'companySources' | 'sanctions'>,
) {
  const registration = input.registration_number.trim().replace(/[\s\-/]/g, '')
  const domain = input.domain ? validateDomain(input.domain) : undefined
  const vat = input.vat_number ? validateVatNumber(input.vat_number) : undefined
  return runTiered<z.infer<typeof KybCheckResult>>(ctx, {
    operation: 'kyb_check',
    entityHash: entityHash(registrationIdentity(input.registration_number, input.country)),
    inputHash: inputHash('kyb_check', input),
    input,
    trustScoreOf: (body) => body.trust_score,
    run: async (tier) => {
      const outcome = await runCompanyCheck(
        {
          entity_name: input.entity_name,
          country: input.country,
          kvk_number: input.country === 'NL' ? registration.replace(/\./g, '') : undefined,
          cbe_number: input.country === 'BE' ? registration : undefined,
          vat_number: vat?.ok ? vat.value.vat_number : input.vat_number,
          domain:
            domain?.ok === true
              ? { host: domain.value.hostname, registrable: domain.value.registrable_domain }
              : undefined,
          search_register_by_name: false,
          enhanced: tier === 'enhanced',
          sanctions_match: tier === 'enhanced' ? 'fuzzy' : 'exact',
        },
        companyCheckDeps(ctx),
      )
      const { trust } = outcome
      const sanctions = outcome.sanctions.result
      const flagged = sanctions.status === 'ok' && sanctions.possible_match
      const sanctionsStatus =
        sanctions.status === 'unavailable'
          ? 'unavailable'
          : sanctions.coverage.status === 'complete'
            ? 'ok'
            : 'partial'
      // Every source ok (a partial sanctions screen is not): nothing is verified on half a screen.
      const allAnswered = trust.sources.every((source) => source.status === 'ok')
      const kybStatus =
        outcome.register_failed || flagged || outcome.vat_invalid
          ? 'failed'
          : outcome.register_verified &&
              sanctionsStatus === 'ok' &&
              allAnswered &&
              trust.trust_score >= KYB_VERIFIED_MIN_TRUST
            ? 'verified'
            : 'review'
      return {
        verified: kybStatus === 'verified',
        register_verified: outcome.register_verified,
        register_checked: outcome.register_checked,
        sanctions_flagged: flagged,
        kyb_status: kybStatus,
        trust_score: trust.trust_score,
        entity_id: input.entity_id,
        sanctions_status: sanctionsStatus,
        ...sanctionsCoverageOf(outcome),
        cluster: trust.cluster,
        recommendation: trust.recommendation,
        ...(trust.recommendation_reasons.length > 0
          ? { recommendation_reasons: trust.recommendation_reasons }
          : {}),
        confidence: trust.confidence,
        sources_checked: trust.sources_checked,
        sources: trust.sources,
        risk_factors: trust.risk_factors,
        ...(outcome.register_profile ? { register_profile: { ...outcome.register_profile } } : {}),
      }
    },
  })
}

export const kybCheck = defineOperation({
  id: 'kyb_check',
  http: { method: 'POST', path: '/v1/kyb/check' },
  title: 'KYB check',
  summary: 'Know-your-business check: register, VIES and sanctions',
  description:
    'Register by number (KVK for NL, KBO for BE), VIES, sanctions, domain and country risk in parallel. kyb_status verified, review or failed. Quality tiers: cached, fresh, enhanced.',
  input: KybCheckInput,
  output: KybCheckResult,
  price: PRICES.kyb_check,
  essentials: {
    parts: [
      { ...SANCTIONS_PART, when: 'always (entity_name, else the names the register holds)' },
      { ...REGISTER_PART, when: 'NL (KVK) and BE (KBO): the registration_number is looked up' },
    ],
    check: async (input, deps) => [
      ...nameScreenNotReady(deps),
      ...(await registerNotReady(deps, { kvk: input.country === 'NL', kbo: input.country === 'BE' })),
    ],
  },
  ports: ['checks', 'companySources', 'sanctions'],
  access: { sandbox: 'mock', minTier: 'pro' },
  openWorld: true,
  mock: mockKybCheck,
  run: runKybCheck,
})
