import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { formatUsd } from '../money.ts'
import { defineOperation } from './define.ts'
import { keyCallerOf } from './operation-context.ts'

export const KeysRevokeInput = z
  .object({
    confirm: z
      .literal(true, { error: 'must be true: revoking cannot be undone and forfeits the balance' })
      .describe('Must be true: revoking cannot be undone and forfeits the remaining balance'),
  })
  .strict()

export const KeysRevokeResult = z
  .object({
    key_id: z.string(),
    key_prefix: z.string(),
    status: z.literal('revoked'),
    revoked_at: z.string(),
    balance_forfeited_micros: z.number().int().describe('Prepaid balance left on the key, now forfeited'),
    balance_forfeited_usdc: z.string().describe('The same as an exact decimal USD string'),
    note: z.string(),
  })
  .strict()

/**
 * POST /v1/keys/revoke: the holder revokes its own key. From the next request
 * on, on every process, the key gets 401 "API key revoked" (the status is read on every call).
 */
export const keysRevoke = defineOperation({
  id: 'keys_revoke',
  http: { method: 'POST', path: '/v1/keys/revoke' },
  title: 'Revoke this key',
  summary: 'Revoke the calling key at once; its remaining balance is forfeited',
  description:
    'Irreversible: every later call with this key gets 401 "API key revoked", on every server process. ' +
    'The remaining prepaid balance is forfeited and stated in the answer. Send {"confirm": true}. Free; needs an API key.',
  input: KeysRevokeInput,
  output: KeysRevokeResult,
  price: null,
  ports: ['keys'],
  access: { sandbox: 'run' },
  destructive: true,
  run: async (_input, ctx) => {
    const caller = keyCallerOf(ctx)
    if (caller.role === 'admin') {
      throw new ServiceError(
        'forbidden',
        'the operator key is configuration (ADMIN_API_KEY), not a revocable key',
      )
    }
    const keys = ctx.deps.keys
    if (!keys) throw new ServiceError('unavailable', 'keys are not available on this server')
    const record = await keys.revoke(caller.keyId)
    if (!record) throw new ServiceError('unauthorized', 'invalid API key')
    return {
      key_id: record.id,
      key_prefix: record.keyPrefix,
      status: 'revoked' as const,
      revoked_at: ctx.clock.now().toISOString(),
      balance_forfeited_micros: Number(record.balanceMicros),
      balance_forfeited_usdc: formatUsd(record.balanceMicros),
      note:
        record.balanceMicros > 0n
          ? `the remaining balance of ${formatUsd(record.balanceMicros)} USD is forfeited`
          : 'the key held no balance',
    }
  },
})
