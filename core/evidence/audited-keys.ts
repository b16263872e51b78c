import type { ApiKeyService } from '../keys/api-keys.ts'
import type { AnswerEvidence } from './answer-evidence.ts'

/**
 * The key service with its changes in the audit trail: a key created, credited, revoked or given
 * an expiry appends a `change` row to that key's own chain (so its holder sees it in GET
 * /v1/audit/trail). `evidence` is read late: the key service is built before the signing key.
 * A change that could not be recorded is reported, never undone.
 */
export function auditedKeys(
  keys: ApiKeyService,
  evidence: () => AnswerEvidence | undefined,
  onError: (error: unknown) => void = () => {},
): ApiKeyService {
  const record = async (keyId: string, action: string, detail: Record<string, unknown>) => {
    await evidence()
      ?.recordChange({ chain: `key:${keyId}`, keyId, action, outcome: 'ok', detail })
      .catch(onError)
  }
  return {
    ...keys,
    async create(input) {
      const created = await keys.create(input)
      await record(created.record.id, 'key.create', {
        tier: input.tier,
        balance_micros: (input.balance ?? 0n).toString(),
      })
      return created
    },
    async credit(keyId, amount) {
      const updated = await keys.credit(keyId, amount)
      await record(keyId, 'key.credit', { amount_micros: amount.toString() })
      return updated
    },
    async revoke(keyId) {
      const revoked = await keys.revoke(keyId)
      if (revoked) await record(keyId, 'key.revoke', {})
      return revoked
    },
    async expire(keyId, at) {
      const expired = await keys.expire(keyId, at)
      if (expired) await record(keyId, 'key.expire', { expires_at: at.toISOString() })
      return expired
    },
  }
}
