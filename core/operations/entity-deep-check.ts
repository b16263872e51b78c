import { z } from 'zod'
import { runDeepCheck } from '../checks/index.ts'
import { PRICES } from '../payments/pricing.ts'
import { countrySchema, entityNameSchema, kvkNumberSchema } from '../validate/index.ts'
import { defineOperation } from './define.ts'
import type { PartNotReady } from './readiness.ts'

/** spec: POST /v1/entity/deep-check request. No other properties. */
export const EntityDeepCheckInput = z
  .object({
    entity_name: entityNameSchema.describe('Legal name of a company, or a person, 2-255 characters'),
    country: countrySchema.describe('ISO 3166-1 alpha-2, uppercase'),
    kvk_number: kvkNumberSchema
      .optional()
      .describe(
        'Dutch KVK number, 8 digits: the insolvency register is searched by it (exact) instead of by name',
      ),
    credit_report_identifier: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9]{5,20}$/, 'VAT number, tax code or company id: 5-20 letters and digits')
      .optional()
      .describe(
        'Opts into the credit tier (Italian credit report; country IT; only when the service enables it, else 403): Italian VAT number (partita IVA), tax code (codice fiscale) or the provider company id',
      ),
  })
  .strict()

const PepMatchSchema = z
  .object({
    caption: z.string().describe('Display name of the matched entity'),
    schema_type: z.string().describe('FollowTheMoney schema: Person, Company, Organization, ...'),
    topics: z.array(z.string()).describe('FollowTheMoney topics, e.g. role.pep, role.rca'),
    datasets: z.array(z.string()).describe('OpenSanctions datasets the entity comes from'),
    score: z.number().min(0).max(1).describe('Matching score of the match API, 0-1'),
    countries: z.array(z.string()).describe('Countries linked to the entity (lowercase ISO codes)'),
    birth_date: z.string().nullable().describe('Birth date (people), as precise as the source has it'),
  })
  .strict()

const InsolvencyRecordSchema = z
  .object({
    insolvency_number: z.string().describe('Case number, e.g. F.13/25/412'),
    type: z
      .enum(['bankruptcy', 'suspension_of_payments', 'debt_restructuring', 'other'])
      .describe('faillissement, surseance van betaling or schuldsanering'),
    name: z.string().nullable().describe('Name of the insolvent as registered'),
    kvk_number: z.string().nullable().describe('KVK number of the insolvent, when registered'),
    court: z.string().nullable().describe('Court handling the case'),
    legal_personality: z.string().nullable().describe('rechtspersoon (legal person) or natuurlijk persoon'),
    latest_publication: z
      .object({ date: z.string(), description: z.string(), code: z.string().nullable() })
      .strict()
      .nullable()
      .describe('The newest publication of the case'),
    publication_count: z.number().int().describe('Publications of the case'),
    ended: z.boolean().describe('The newest publication ends the case'),
  })
  .strict()

export const EntityDeepCheckResult = z
  .object({
    entity_name: z.string(),
    country: z.string(),
    quality: z.enum(['fresh', 'enhanced']).describe('Tier that ran (cached is not offered: it runs fresh)'),
    tiers: z.array(z.enum(['fresh', 'enhanced', 'credit'])).describe('Tiers that ran, credit included'),
    sources_returned: z.array(z.string()).describe('Sources that answered (every source the tiers needed)'),
    pep_extended: z
      .object({
        screened: z.boolean(),
        pep_exposure: z
          .enum(['none', 'pep', 'rca'])
          .describe('pep: a match holds role.pep; rca: relatives/close associates only'),
        match_count: z.number().int(),
        matches: z.array(PepMatchSchema),
        truncated: z.boolean().describe('More candidates than returned'),
        retrieved_at: z.string(),
        dataset: z.string().describe('Dataset matched against'),
      })
      .strict(),
    insolvency_records: z
      .object({
        screened: z.boolean(),
        applicable: z.boolean().describe('false outside the Netherlands (the register is Dutch)'),
        jurisdiction: z.literal('NL'),
        query_by: z.enum(['kvk_number', 'name']).nullable(),
        found: z.boolean(),
        match_count: z.number().int().describe('Cases found'),
        records: z.array(InsolvencyRecordSchema),
        truncated: z.boolean(),
        retrieved_at: z.string().nullable(),
      })
      .strict(),
    adverse_media: z
      .object({
        screened: z.boolean(),
        source: z.string().describe('gdelt (GDELT DOC 2.0)'),
        query: z.string().describe('The news query sent'),
        timespan: z.string().describe('Look-back window'),
        article_count: z.number().int(),
        articles: z.array(
          z
            .object({
              title: z.string(),
              url: z.string(),
              source: z.string().describe('Publishing site'),
              source_country: z.string().nullable(),
              language: z.string().nullable(),
              date: z.string().nullable().describe('When GDELT saw the article'),
              tone: z
                .number()
                .nullable()
                .describe('GDELT tone bin (negative is adverse), null when not given'),
            })
            .strict(),
        ),
        truncated: z.boolean(),
        retrieved_at: z.string(),
      })
      .strict()
      .optional()
      .describe('Enhanced tier only'),
    credit_report: z
      .object({
        identifier: z.string(),
        found: z.boolean(),
        company_name: z.string().nullable(),
        vat_number: z.string().nullable(),
        tax_code: z.string().nullable(),
        score: z.number().nullable(),
        score_scale: z.string().nullable(),
        rating: z.string().nullable(),
        credit_limit_eur: z.number().nullable(),
        activity_status: z.string().nullable(),
        provider: z.string(),
        retrieved_at: z.string(),
      })
      .strict()
      .optional()
      .describe('Credit tier only (credit_report_identifier sent)'),
    processing_time_ms: z.number().int().min(0).describe('Wall time of the source calls'),
  })
  .strict()

/**
 * spec: POST /v1/entity/deep-check. fresh = PEP/RCA (OpenSanctions yente) + Dutch insolvency
 * register (NL only); enhanced = the same + adverse media (GDELT); credit_report_identifier adds the
 * Italian credit report. A source the tier needs that cannot be reached fails the call with 503
 * (errorCode `<source>_unavailable`) before anything is charged.
 */
export const entityDeepCheck = defineOperation({
  id: 'entity_deep_check',
  http: { method: 'POST', path: '/v1/entity/deep-check' },
  summary:
    'Deep check: PEP and relatives/close associates, Dutch insolvency register, adverse media, Italian credit',
  description:
    'Quality tiers: fresh (PEP/RCA through an OpenSanctions-compatible matching API, plus the Dutch Centraal Insolventieregister when country is NL) and enhanced (the same plus adverse media from GDELT). credit_report_identifier adds an Italian credit report (country IT, when enabled; otherwise 403 credit_tier_not_enabled). All sources are asked at once; when a source the tier needs cannot be reached the answer is 503 with errorCode <source>_unavailable and nothing is charged (key debit released, x402 not settled). cached is not a deep-check tier and runs (and charges) fresh.',
  input: EntityDeepCheckInput,
  output: EntityDeepCheckResult,
  price: PRICES.entity_deep_check,
  essentials: {
    parts: [
      { part: 'pep', when: 'always', needs: 'YENTE_URL (an OpenSanctions-compatible matching API)' },
      {
        part: 'insolvency',
        when: 'country NL',
        needs: 'CIR_USERNAME and CIR_PASSWORD (Centraal Insolventieregister)',
      },
      { part: 'adverse_media', when: 'enhanced tier', needs: 'GDELT_DOC_URL not off' },
    ],
    check: (input, deps, quality) => {
      const sources = deps.deepCheck ?? {}
      const missing: PartNotReady[] = []
      const notConfigured = (part: string, detail: string, action: string) =>
        missing.push({ part, reason: 'not_configured', detail, operator_action: action })
      if (!sources.pep)
        notConfigured(
          'pep',
          'the PEP/RCA source is not configured',
          'set YENTE_URL (and YENTE_API_KEY when it needs one)',
        )
      if (input.country === 'NL' && !sources.insolvency)
        notConfigured(
          'insolvency',
          'the Dutch insolvency register (CIR) is not configured',
          'set CIR_USERNAME and CIR_PASSWORD',
        )
      if (quality === 'enhanced' && !sources.media)
        notConfigured('adverse_media', 'the adverse media source (GDELT) is turned off', 'set GDELT_DOC_URL')
      return missing
    },
  },
  ports: ['deepCheck'],
  access: { sandbox: 'refuse' },
  openWorld: true,
  run: async (input, ctx) => {
    const tier: 'fresh' | 'enhanced' = ctx.quality === 'enhanced' ? 'enhanced' : 'fresh'
    const outcome = await runDeepCheck({ ...input, tier }, ctx.deps.deepCheck ?? {})
    return { entity_name: input.entity_name, country: input.country, quality: tier, ...outcome }
  },
})
