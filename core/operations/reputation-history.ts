import { z } from 'zod'
import { getReputationHistory } from '../checks/index.ts'
import { defineOperation } from './define.ts'

/** Query integers: JSON numbers over MCP, strings in a query string over REST. */
const pageInteger = (min: number, max: number) => z.coerce.number().int().min(min).max(max)

export const ReputationHistoryInput = z
  .object({
    entity_hash: z
      .string()
      .min(1)
      .max(128)
      .describe('The entity_hash of an earlier entity, risk, reputation or KYB check of this key'),
    limit: pageInteger(1, 200).optional().describe('Checks per page, 1-200 (default 50)'),
    offset: pageInteger(0, 1_000_000).optional().describe('Checks to skip (default 0)'),
  })
  .strict()

const HistoryEntry = z
  .object({
    check_id: z.string().describe('Id of the stored check'),
    operation: z.string().describe('Which operation stored it: entity_check, risk_score, ...'),
    quality: z.string().describe('The quality tier that produced it'),
    checked_at: z.string().describe('When it ran (ISO timestamp)'),
    trust_score: z.number().nullable().describe('Trust score 0-100, when the check has one'),
    cluster: z.string().nullable().describe('Risk cluster, when the check has one'),
    recommendation: z.string().nullable().describe('Recommendation, when the check has one'),
    risk_score: z.number().nullable().describe('Risk score (risk_score checks)'),
    reputation_score: z.number().nullable().describe('Reputation score (reputation_score checks)'),
    kyb_status: z.string().nullable().describe('KYB status (kyb_check checks)'),
    sources_checked: z.number().nullable().describe('Sources that answered'),
  })
  .strict()

export const ReputationHistoryResult = z
  .object({
    entity_hash: z.string(),
    total: z.number().int().min(0).describe('Stored checks of this entity by this key'),
    limit: z.number().int(),
    offset: z.number().int(),
    checks: z.array(HistoryEntry).describe('Newest first'),
  })
  .strict()

/**
 * GET /v1/reputation/history/{entity_hash} (spec: Usage, provider and data operations): the
 * caller's own stored checks of one entity. Free, key required; 404 for an unknown hash and for
 * one only another key checked.
 */
export const reputationHistory = defineOperation({
  id: 'reputation_history',
  http: { method: 'GET', path: '/v1/reputation/history/{entity_hash}' },
  summary: "The calling key's stored checks of one entity, newest first",
  description:
    'entity_hash comes from an earlier check of this key; an unknown hash, or one only another key checked, is 404. Free; needs an API key.',
  input: ReputationHistoryInput,
  output: ReputationHistoryResult,
  price: null,
  ports: ['checks'],
  access: { sandbox: 'run' },
  run: (input, ctx) =>
    getReputationHistory(ctx.deps.checks, ctx.caller, input.entity_hash, {
      limit: input.limit,
      offset: input.offset,
    }),
})
