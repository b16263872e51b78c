import { z } from 'zod'
import { SanctionsCoverageSchema } from '../sanctions/coverage.ts'

/** Marks mock bodies in output schemas (present only on sandbox answers). */
export const mockFields = {
  mock: z.literal(true).optional().describe('Present and true only on sandbox (mock) answers'),
  mock_note: z.string().optional().describe('Why this answer is mock data'),
}

/** spec: Report source status (ok, or unavailable with a reason). */
export const SourceStatusSchema = z
  .object({
    source: z.string().describe('Source name, e.g. kvk, kbo, vies, rdap, dns, tls, sanctions, country_risk'),
    status: z
      .enum(['ok', 'partial', 'unavailable'])
      .describe(
        'ok: it answered; partial: it answered for only part of what it promises (a sanctions screen without every list; never clean); unavailable: it did not (never clean)',
      ),
    reason: z
      .string()
      .optional()
      .describe(
        'Why it was unavailable (timeout, not_configured, ...) or what a partial source did not cover',
      ),
    fetched_at: z.string().describe('When it was asked (ISO timestamp)'),
  })
  .strict()

/** The coverage of the sanctions screen behind a company check (lists checked and not, why). */
export const sanctionsCoverageField = {
  sanctions_coverage: SanctionsCoverageSchema.optional().describe(
    'Which sanctions lists the screen checked (publication date, age, stale) and which it did not, with why; the screen is clear only when status is complete',
  ),
}

/** Why the recommendation is bounded (a partial or missing source), when it is. */
export const recommendationReasonsField = {
  recommendation_reasons: z
    .array(z.string())
    .optional()
    .describe(
      'What keeps the recommendation from being better, e.g. "manual_review: the sanctions screen is partial: ..."',
    ),
}

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
