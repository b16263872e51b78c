import { z } from 'zod'
import {
  entityHash,
  inputHash,
  nameIdentity,
  ownerOf,
  runCompanyCheck,
  runTiered,
  sanctionsCoverageOf,
} from '../checks/index.ts'
import { PRICES } from '../payments/pricing.ts'
import { type SanctionsCoverage, SanctionsCoverageSchema } from '../sanctions/coverage.ts'
import { CLUSTERS, type Cluster, clusterForScore, reputationOf } from '../scoring/index.ts'
import { countrySchema, entityNameSchema } from '../validate/index.ts'
import { requiredIssue } from '../validate/required-issue.ts'
import { CheckEnvelopeFields, SourceStatusSchema, sanctionsCoverageField } from './common-schemas.ts'
import { defineOperation } from './define.ts'
import { companyCheckDeps, type OperationContext } from './operation-context.ts'
import {
  nameScreenNotReady,
  notReadyError,
  REGISTER_PART,
  registerNotReady,
  SANCTIONS_PART,
} from './readiness.ts'

/** spec: POST /v1/reputation/score request. */
export const ReputationScoreInput = z
  .object({
    entity_name: entityNameSchema.describe('Legal name, 2-255 characters'),
    country: countrySchema
      .optional()
      .describe('ISO 3166-1 alpha-2; required unless both trust_score and cluster are sent'),
    trust_score: z.number().int().min(0).max(100).optional().describe('Trust score at the last verification'),
    cluster: z
      .enum(CLUSTERS)
      .optional()
      .describe('Risk cluster; send with trust_score to skip auto-computation'),
    last_verified_at: z
      .number()
      .min(0)
      .optional()
      .describe('Unix timestamp (seconds) of the last verification; default now'),
    verification_count: z.number().int().min(1).max(1_000_000).optional().describe('Verifications so far'),
    agent_id: z.string().min(1).max(200).optional().describe('ERC-8004 agent id of the entity, echoed'),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.cluster !== undefined && input.trust_score === undefined) {
      ctx.addIssue({ code: 'custom', path: ['cluster'], message: 'needs trust_score' })
    }
    if (input.country === undefined && (input.trust_score === undefined || input.cluster === undefined)) {
      ctx.addIssue(requiredIssue(['country'], 'is required unless trust_score and cluster are sent'))
    }
  })
  // The same rule in the JSON Schema (OpenAPI, MCP inputSchema), not only in prose.
  .meta({ anyOf: [{ required: ['country'] }, { required: ['trust_score', 'cluster'] }] })

export const ReputationScoreResult = z.object({
  reputation_score: z.number().int().min(0).max(100).describe('Trust score after decay and repeat bonus'),
  trend: z.enum(['improving', 'stable', 'declining']).describe('Direction of the reputation'),
  confidence: z.number().min(0).max(1).describe('0-1; falls as the verification ages'),
  verification_count: z.number().int().min(1).describe('Verifications counted'),
  entity_name: z.string(),
  country: z.string().optional(),
  base_trust_score: z.number().int().describe('Trust score at the last verification'),
  cluster: z.string().describe('Risk cluster that sets the decay rate'),
  basis: z
    .enum(['input', 'stored_check', 'fresh_check'])
    .describe('Where the base score came from: your input, your latest stored check, or a check run now'),
  last_verified_at: z.number().describe('Unix timestamp (seconds) of the verification decayed from'),
  days_since_verification: z.number().int().describe('Whole days since that verification'),
  decay_points: z.number().describe('Points lost to decay'),
  repeat_bonus: z.number().int().describe('Points added for repeat verifications (at most 5)'),
  agent_id: z.string().optional().describe('As sent'),
  sources: z.array(SourceStatusSchema).optional().describe('Sources of a check run now (basis fresh_check)'),
  ...sanctionsCoverageField,
  ...CheckEnvelopeFields,
})

type Input = z.infer<typeof ReputationScoreInput>

/** Confidence given to a trust score the caller sent: the service did not verify it. */
export const INPUT_SCORE_CONFIDENCE = 0.6

interface Base {
  trust_score: number
  cluster: Cluster
  confidence: number
  last_verified_at: Date
  verification_count: number
  previous_trust_score?: number
  basis: 'input' | 'stored_check' | 'fresh_check'
  sources?: z.infer<typeof SourceStatusSchema>[]
  sanctions_coverage?: SanctionsCoverage
}

async function baseOf(
  input: Input,
  ctx: OperationContext<'checks' | 'companySources' | 'sanctions'>,
  tier: 'fresh' | 'enhanced',
): Promise<Base> {
  const now = ctx.clock.now()
  if (input.trust_score !== undefined && input.cluster !== undefined) {
    return {
      trust_score: input.trust_score,
      cluster: input.cluster,
      confidence: INPUT_SCORE_CONFIDENCE,
      last_verified_at: now,
      verification_count: 1,
      basis: 'input',
    }
  }
  const country = input.country as string
  const store = ctx.deps.checks
  const owner = ownerOf(ctx.caller)
  if (input.trust_score === undefined && tier === 'fresh' && store && owner) {
    const { checks } = await store.history(
      owner.owner,
      entityHash(nameIdentity(input.entity_name, country)),
      {
        operations: ['entity_check', 'reputation_score'],
        limit: 50,
      },
    )
    const verified = checks.filter((check) => check.trustScore !== null)
    const latest = verified[0]
    const cluster = latest?.result.cluster
    if (latest && typeof cluster === 'string' && (CLUSTERS as readonly string[]).includes(cluster)) {
      const confidence = latest.result.confidence
      // The stored check's sanctions coverage travels with its score: a partial screen stays partial.
      const stored = SanctionsCoverageSchema.safeParse(latest.result.sanctions_coverage)
      return {
        ...(stored.success ? { sanctions_coverage: stored.data } : {}),
        trust_score: latest.trustScore as number,
        cluster: cluster as Cluster,
        confidence: typeof confidence === 'number' ? confidence : 1,
        last_verified_at: latest.createdAt,
        verification_count: verified.length,
        ...(verified[1]?.trustScore != null ? { previous_trust_score: verified[1].trustScore } : {}),
        basis: 'stored_check',
      }
    }
  }
  // A check runs now: its essential parts must be able to run (else 503, nothing charged).
  const notReady = [
    ...nameScreenNotReady(ctx.deps),
    ...(await registerNotReady(ctx.deps, { kvk: country === 'NL', kbo: false })),
  ]
  if (notReady.length > 0) throw notReadyError('reputation_score', notReady)
  const outcome = await runCompanyCheck(
    { entity_name: input.entity_name, country, search_register_by_name: true, enhanced: false },
    companyCheckDeps(ctx),
  )
  const coverage = sanctionsCoverageOf(outcome)
  const { trust } = outcome
  if (input.trust_score !== undefined) {
    // A score was sent without its cluster: the cluster follows the score, unless the screen flags.
    return {
      trust_score: input.trust_score,
      cluster:
        trust.cluster === 'sanctions_flagged' ? 'sanctions_flagged' : clusterForScore(input.trust_score),
      confidence: INPUT_SCORE_CONFIDENCE,
      last_verified_at: now,
      verification_count: 1,
      basis: 'input',
      sources: trust.sources,
      ...coverage,
    }
  }
  return {
    trust_score: trust.trust_score,
    cluster: trust.cluster,
    confidence: trust.confidence,
    last_verified_at: now,
    verification_count: 1,
    basis: 'fresh_check',
    sources: trust.sources,
    ...coverage,
  }
}

/**
 * Reputation with linear trust decay (spec: POST /v1/reputation/score; METHODOLOGY.md
 * "Reputation"). The base is the score sent, else the caller's latest stored check of the
 * entity (by name), else a check run now; the enhanced tier always checks now.
 */
export async function runReputationScore(
  input: Input,
  ctx: OperationContext<'checks' | 'companySources' | 'sanctions'>,
) {
  const country = input.country
  const identity = nameIdentity(input.entity_name, country ?? 'ZZ')
  return runTiered<z.infer<typeof ReputationScoreResult>>(ctx, {
    operation: 'reputation_score',
    entityHash: entityHash(identity),
    inputHash: inputHash('reputation_score', input),
    input,
    trustScoreOf: (body) => (body.basis === 'fresh_check' ? body.base_trust_score : null),
    run: async (tier) => {
      const base = await baseOf(input, ctx, tier)
      const lastVerified =
        input.last_verified_at !== undefined ? new Date(input.last_verified_at * 1000) : base.last_verified_at
      const count = input.verification_count ?? base.verification_count
      const reputation = reputationOf({
        trust_score: base.trust_score,
        cluster: base.cluster,
        last_verified_at: lastVerified,
        now: ctx.clock.now(),
        verification_count: count,
        base_confidence: base.confidence,
        previous_trust_score: base.previous_trust_score,
      })
      return {
        reputation_score: reputation.reputation_score,
        trend: reputation.trend,
        confidence: reputation.confidence,
        verification_count: count,
        entity_name: input.entity_name,
        ...(country ? { country } : {}),
        base_trust_score: base.trust_score,
        cluster: base.cluster,
        basis: base.basis,
        last_verified_at: Math.floor(lastVerified.getTime() / 1000),
        days_since_verification: reputation.days_since_verification,
        decay_points: reputation.decay_points,
        repeat_bonus: reputation.repeat_bonus,
        ...(input.agent_id ? { agent_id: input.agent_id } : {}),
        ...(base.sources ? { sources: base.sources } : {}),
        ...(base.sanctions_coverage ? { sanctions_coverage: base.sanctions_coverage } : {}),
      }
    },
  })
}

export const reputationScore = defineOperation({
  id: 'reputation_score',
  http: { method: 'POST', path: '/v1/reputation/score' },
  summary: 'Reputation score with linear trust decay and a repeat-verification bonus',
  description:
    'After the first week a score loses 2-5 points per week by risk cluster (none when sanctions-flagged), plus up to 5 points for repeat verifications. Quality tiers: cached, fresh, enhanced (always re-verifies now).',
  input: ReputationScoreInput,
  output: ReputationScoreResult,
  price: PRICES.reputation_score,
  essentials: {
    parts: [
      {
        ...SANCTIONS_PART,
        when: 'when a check runs now (no trust_score and cluster sent, no stored check reused)',
      },
      { ...REGISTER_PART, when: 'when a check runs now, NL (KVK search by name)' },
    ],
    // Whether a check runs is known only once the stored checks were read: run() asks then,
    // before any source, and a part that cannot run fails the call uncharged.
    check: () => [],
  },
  ports: ['checks', 'companySources', 'sanctions'],
  access: { sandbox: 'refuse' },
  openWorld: true,
  run: runReputationScore,
})
