import { z } from 'zod'

/** Marks mock bodies in output schemas (present only on sandbox answers). */
export const mockFields = {
  mock: z.literal(true).optional().describe('Present and true only on sandbox (mock) answers'),
  mock_note: z.string().optional().describe('Why this answer is mock data'),
}

/** spec: Report source status (ok, or unavailable with a reason). */
export const SourceStatusSchema = z
  .object({
    source: z.string().describe('Source name, e.g. kvk, kbo, vies, rdap, dns, tls, sanctions, country_risk'),
    status: z.enum(['ok', 'unavailable']).describe('ok: it answered; unavailable: it did not (never clean)'),
    reason: z.string().optional().describe('Why it was unavailable (timeout, not_configured, ...)'),
    fetched_at: z.string().describe('When it was asked (ISO timestamp)'),
  })
  .strict()

/** Fields every stored company check answer carries (check id, entity hash, tier). */
export const CheckEnvelopeFields = {
  check_id: z.string().optional().describe('Id of the stored check'),
  entity_hash: z.string().optional().describe('Entity id for GET /v1/reputation/history/{entity_hash}'),
  quality: z
    .enum(['cached', 'fresh', 'enhanced'])
    .optional()
    .describe('The quality tier that produced the answer'),
  checked_at: z.string().optional().describe('When the sources were asked (ISO timestamp)'),
  cached_from: z
    .object({
      check_id: z.string().describe('The stored check this cached answer comes from'),
      quality: z.string().describe('The tier of that stored check'),
      checked_at: z.string().describe('When that check ran'),
    })
    .strict()
    .optional()
    .describe('Present on cached answers'),
}

/** spec: target_industries / target_size, echoed as information only. */
export const InformationSchema = z
  .object({
    target_industries: z.array(z.string()).optional().describe('As sent'),
    target_size: z
      .object({ min: z.number().int().describe('As sent'), max: z.number().int().describe('As sent') })
      .strict()
      .optional()
      .describe('As sent'),
    note: z.string().describe('Information only: never changes the score'),
  })
  .strict()
  .describe('Information-only fields echoed back')
