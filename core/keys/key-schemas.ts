import { z } from 'zod'
import { parseUsdAmount } from '../money.ts'
import { SELF_SERVICE_TIERS, TIERS } from './api-keys.ts'

const tierSchema = z.enum(TIERS as ['sandbox', 'free', 'starter', 'pro', 'enterprise'])

/** POST /v1/keys/create (spec: Key operations). Only free and sandbox keys are provisioned directly. */
export const CreateKeyInput = z
  .object({
    email: z.email().max(254).describe('Contact e-mail of the key holder'),
    tier: tierSchema
      .refine((tier) => SELF_SERVICE_TIERS.includes(tier), {
        error: (issue) =>
          `tier ${String(issue.input)} cannot be created directly: create a free key, then buy balance with POST /v1/keys/upgrade/${String(issue.input)}`,
      })
      .describe('sandbox (mock data, free) or free (live key, prepaid balance)'),
  })
  .strict()

/**
 * A USD amount as a JSON number (5, 0.1) or a decimal string ("25.00"), read exactly by
 * `parseUsdAmount`; the parsed value is the normalised decimal string that `usd()` accepts.
 */
const usdAmount = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const result = parseUsdAmount(value)
  if (result.ok) return result.value
  ctx.addIssue({ code: 'custom', message: result.message })
  return z.NEVER
})

/** POST /v1/admin/keys: the operator creates a live key with a starting balance. */
export const AdminCreateKeyInput = z
  .object({
    email: z.email().max(254).describe('Contact e-mail of the key holder'),
    tier: tierSchema.exclude(['sandbox']).describe('Tier of the live key'),
    balance_usd: usdAmount.default('0').describe('Starting prepaid balance in USD'),
  })
  .strict()

/**
 * The `{key_id}` of an operator key route. Checked like any input before it reaches the database:
 * a NUL or another control character is a 422 naming `key_id` (PostgreSQL text refuses NUL), an
 * unknown well-formed id a 404.
 */
export const AdminKeyPath = z
  .object({ key_id: z.string().min(1).max(100).describe('Id of the key (key_id from its creation)') })
  .strict()

/** POST /v1/admin/keys/{key_id}/credit: the operator adds prepaid balance. */
export const AdminCreditInput = z
  .object({ amount_usd: usdAmount.describe('Balance to add, in USD') })
  .strict()

/** POST /v1/admin/keys/{key_id}/expire: the operator sets when a key stops working (default now). */
export const AdminExpireInput = z
  .object({
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('ISO 8601 moment the key stops working; omitted or in the past: now'),
  })
  .strict()
