import type { Caller } from '../context.ts'
import { ServiceError } from '../errors.ts'
import type { CheckStore } from './check-store.ts'
import { ownerOf } from './check-store.ts'

export interface HistoryEntry {
  check_id: string
  operation: string
  quality: string
  checked_at: string
  trust_score: number | null
  cluster: string | null
  recommendation: string | null
  risk_score: number | null
  reputation_score: number | null
  kyb_status: string | null
  sources_checked: number | null
}

export interface ReputationHistory {
  entity_hash: string
  total: number
  limit: number
  offset: number
  checks: HistoryEntry[]
}

const pick = <T>(result: Record<string, unknown>, key: string, type: 'number' | 'string'): T | null =>
  typeof result[key] === type ? (result[key] as T) : null

/**
 * GET /v1/reputation/history/{entity_hash}: the caller's own stored checks of one entity,
 * newest first. Unknown hashes and hashes only another key checked are the same 404 (spec:
 * Errors, "404 unknown entity hash"), so a tenant cannot learn what others checked.
 */
export async function getReputationHistory(
  store: CheckStore | undefined,
  caller: Caller,
  entityHash: string,
  options: { limit?: number; offset?: number } = {},
): Promise<ReputationHistory> {
  const owner = ownerOf(caller)
  const limit = Math.min(200, Math.max(1, options.limit ?? 50))
  const offset = Math.max(0, options.offset ?? 0)
  const notFound = () => new ServiceError('not_found', 'unknown entity hash')
  if (!store || !owner || !/^[0-9a-f]{64}$/.test(entityHash)) throw notFound()
  const { total, checks } = await store.history(owner.owner, entityHash, { limit, offset })
  if (total === 0) throw notFound()
  return {
    entity_hash: entityHash,
    total,
    limit,
    offset,
    checks: checks.map((check) => ({
      check_id: check.id,
      operation: check.operation,
      quality: check.quality,
      checked_at: check.createdAt.toISOString(),
      trust_score: check.trustScore,
      cluster: pick<string>(check.result, 'cluster', 'string'),
      recommendation: pick<string>(check.result, 'recommendation', 'string'),
      risk_score: pick<number>(check.result, 'risk_score', 'number'),
      reputation_score: pick<number>(check.result, 'reputation_score', 'number'),
      kyb_status: pick<string>(check.result, 'kyb_status', 'string'),
      sources_checked: pick<number>(check.result, 'sources_checked', 'number'),
    })),
  }
}
