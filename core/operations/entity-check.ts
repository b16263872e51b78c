import { z } from 'zod'
import {
  cbeOf,
  entityCheckIdentity,
  entityHash,
  inputHash,
  runCompanyCheck,
  runTiered,
  sanctionsCoverageOf,
} from '../checks/index.ts'
import { PRICES } from '../payments/pricing.ts'
import {
  cbeNumberSchema,
  countrySchema,
  domainSchema,
  entityNameSchema,
  ibanSchema,
  kvkNumberSchema,
  validateDomain,
  validateIban,
  validateVatNumber,
  validateWalletForChain,
  vatNumberSchema,
  WALLET_CHAINS,
  walletAddressSchema,
  walletChainOf,
} from '../validate/index.ts'
import {
  CheckEnvelopeFields,
  InformationSchema,
  mockFields,
  recommendationReasonsField,
  SourceStatusSchema,
  sanctionsCoverageField,
} from './common-schemas.ts'
import { defineOperation } from './define.ts'
import { companyCheckDeps, type OperationContext } from './operation-context.ts'
import {
  nameScreenNotReady,
  type OperationEssentials,
  REGISTER_PART,
  registerNotReady,
  registersWanted,
  requireEntityEvidence,
  SANCTIONS_PART,
} from './readiness.ts'
import { dismissalAwareScreen } from './sanctions-dismissals.ts'
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
    wallet_address: walletAddressSchema
      .optional()
      .describe(
        'EVM, Solana or Bitcoin address: format check and screen against the OFAC digital currency addresses (no on-chain lookup)',
      ),
    wallet_chain: z
      .enum(WALLET_CHAINS)
      .optional()
      .describe(
        'Chain of wallet_address. Omitted: the address format decides (Solana base58 is sol, a Bitcoin address btc, an EVM address eth)',
      ),
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
    // Without wallet_chain the address's own format names its chain (walletChainOf); with one, the
    // address must be of that chain's family.
    if (input.wallet_address) {
      const checked = validateWalletForChain(
        input.wallet_address,
        walletChainOf(input.wallet_address, input.wallet_chain),
      )
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
    status: z
      .enum(['ok', 'partial', 'unavailable', 'not_checked'])
      .optional()
      .describe(
        "Whether the finding's source answered (partial: only for part of what it promises, never clean; unavailable: it did not; not_checked: it could not be asked)",
      ),
  })
  .describe('One finding behind the score, with its source')

export const EntityCheckResult = z.object({
  trust_score: z.number().int().min(0).max(100).describe('0-100, 100 best'),
  cluster: z.string().describe('Risk cluster'),
  recommendation: z.string().describe('What to do with this entity'),
  ...recommendationReasonsField,
  sources_checked: z.number().int().min(0).describe('Sources that answered'),
  entity_name: z.string(),
  country: z.string(),
  risk_factors: z.array(RiskFactor),
  confidence: z.number().min(0).max(1).optional().describe('0-1: share of the evidence that was obtained'),
  sources: z.array(SourceStatusSchema).optional().describe('Every source called, with its status'),
  ...sanctionsCoverageField,
  register_profile: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Enhanced tier: register details (legal form, address, activities) and the VIES name'),
  information: InformationSchema.optional(),
  ...CheckEnvelopeFields,
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
        status: 'ok',
      },
    ],
    ...MOCK_MARKER,
  }
}

type EntityCheckInputType = z.infer<typeof EntityCheckInput>

/** Echo of the information-only fields (spec: never changes the score). */
export function informationOf(input: Pick<EntityCheckInputType, 'target_industries' | 'target_size'>) {
  if (input.target_industries === undefined && input.target_size === undefined) return undefined
  return {
    ...(input.target_industries ? { target_industries: input.target_industries } : {}),
    ...(input.target_size ? { target_size: input.target_size } : {}),
    note: 'information only: never changes the score',
  }
}

/**
 * The real entity check (spec: POST /v1/entity/check): KVK (kvk_number, or NL by name), KBO
 * (cbe_number or a BE VAT number), VIES (vat_number), RDAP + DNS + TLS (domain), IBAN bank and
 * country, wallet format, country risk and sanctions, all at once; scored by core/scoring.
 */
export async function runEntityCheck(
  input: EntityCheckInputType,
  ctx: OperationContext<'checks' | 'companySources' | 'sanctions' | 'dismissals' | 'sanctionsLists'>,
) {
  const { target_industries: _industries, target_size: _size, ...scored } = input
  const domain = input.domain ? validateDomain(input.domain) : undefined
  const iban = input.iban ? validateIban(input.iban) : undefined
  const vat = input.vat_number ? validateVatNumber(input.vat_number) : undefined
  const result = await runTiered<z.infer<typeof EntityCheckResult>>(ctx, {
    operation: 'entity_check',
    entityHash: entityHash(entityCheckIdentity(input)),
    inputHash: inputHash('entity_check', scored),
    input: scored,
    trustScoreOf: (body) => body.trust_score,
    run: async (tier) => {
      const outcome = await runCompanyCheck(
        {
          entity_name: input.entity_name,
          country: input.country,
          kvk_number: input.kvk_number,
          cbe_number: input.cbe_number,
          vat_number: vat?.ok ? vat.value.vat_number : input.vat_number,
          domain:
            domain?.ok === true
              ? { host: domain.value.hostname, registrable: domain.value.registrable_domain }
              : undefined,
          iban: iban?.ok ? iban.value.iban : input.iban,
          wallet: input.wallet_address
            ? {
                address: input.wallet_address,
                chain: walletChainOf(input.wallet_address, input.wallet_chain),
              }
            : undefined,
          search_register_by_name: true,
          enhanced: tier === 'enhanced',
          sanctions_match: tier === 'enhanced' ? 'fuzzy' : 'exact',
        },
        { ...companyCheckDeps(ctx), sanctions: dismissalAwareScreen(ctx) },
      )
      const { trust } = outcome
      requireEntityEvidence('entity_check', trust.sources)
      return {
        trust_score: trust.trust_score,
        cluster: trust.cluster,
        recommendation: trust.recommendation,
        ...(trust.recommendation_reasons.length > 0
          ? { recommendation_reasons: trust.recommendation_reasons }
          : {}),
        sources_checked: trust.sources_checked,
        entity_name: input.entity_name,
        country: input.country,
        risk_factors: trust.risk_factors,
        confidence: trust.confidence,
        sources: trust.sources,
        ...sanctionsCoverageOf(outcome),
        ...(outcome.register_profile ? { register_profile: { ...outcome.register_profile } } : {}),
      }
    },
  })
  const information = informationOf(input)
  const { information: _stored, ...rest } = result
  return information ? { ...rest, information } : rest
}

/**
 * The essential parts of an entity check (and of the report built on one): the sanctions lists,
 * and the register the country and numbers call for (KVK for NL, KBO for a BE number).
 */
export const companyCheckEssentials: OperationEssentials<
  Pick<EntityCheckInputType, 'country' | 'cbe_number' | 'vat_number'>
> = {
  parts: [SANCTIONS_PART, REGISTER_PART],
  check: async (input, deps) => [
    ...nameScreenNotReady(deps),
    ...(await registerNotReady(
      deps,
      registersWanted(input.country, {
        nlNameSearch: true,
        kbo: cbeOf(input.cbe_number, input.vat_number) !== null || input.cbe_number !== undefined,
      }),
    )),
  ],
}

export const entityCheck = defineOperation({
  id: 'entity_check',
  http: { method: 'POST', path: '/v1/entity/check' },
  summary: 'Full entity trust check: registers (KVK/CBE), sanctions, country risk, domain, IBAN, EU VAT',
  description:
    'Sources are called in parallel; each finding names its source, and a source that did not answer is unavailable (never clean). Quality tiers: cached (stored result younger than 24 h), fresh, enhanced.',
  input: EntityCheckInput,
  output: EntityCheckResult,
  price: PRICES.entity_check,
  essentials: companyCheckEssentials,
  ports: ['checks', 'companySources', 'sanctions', 'dismissals', 'sanctionsLists'],
  access: { sandbox: 'mock' },
  openWorld: true,
  mock: mockEntityCheck,
  run: runEntityCheck,
})
