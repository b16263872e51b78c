import { z } from 'zod'
import { SanctionsCoverageSchema } from '../sanctions/coverage.ts'

const SourceRow = z
  .object({
    source: z.string().describe('Source name (kvk, vies, rdap, sanctions, opensanctions, ...)'),
    status: z
      .enum(['ok', 'partial', 'unavailable'])
      .describe(
        'ok: it answered; partial: it answered for only part of what it promises (never clean); unavailable: it did not (never clean)',
      ),
    reason: z.string().optional().describe('Why it was unavailable, or what a partial source did not cover'),
    fetched_at: z.string().optional().describe('When it was asked'),
  })
  .strict()

/** spec: POST /v1/reports/entity response (also GET /v1/reports/{report_id}). */
export const EntityReportSchema = z
  .object({
    report_id: z.string().describe('Report id for GET /v1/reports/{report_id}'),
    check_id: z.string().describe('The stored entity check the report was built from'),
    created_at: z.string().describe('When the report was built (ISO timestamp)'),
    entity: z
      .object({
        entity_name: z.string(),
        country: z.string(),
        entity_hash: z.string().describe('Entity id (also for GET /v1/badge/{entity_id})'),
        kvk_number: z.string().optional(),
        cbe_number: z.string().optional(),
        vat_number: z.string().optional(),
        domain: z.string().optional(),
        iban: z.string().optional(),
        wallet_address: z.string().optional(),
        wallet_chain: z.string().optional(),
      })
      .strict()
      .describe('The entity as checked'),
    sanctions: z
      .object({
        status: z
          .enum(['ok', 'partial', 'unavailable'])
          .describe(
            'ok: every promised list (OFAC SDN, EU, UN) was screened; partial: some were not (see coverage), so no_match is not a clear result; unavailable: not screened',
          ),
        result: z.enum(['no_match', 'possible_match']).nullable().describe('null when unavailable'),
        coverage: SanctionsCoverageSchema.optional(),
        threshold: z.number().describe('Lowest match_score reported as a possible match (NAME_MATCHING.md)'),
        lists: z
          .array(z.object({ list: z.string(), date: z.string() }).strict())
          .describe('Lists screened and their dates'),
        matches: z
          .array(
            z
              .object({
                list: z.string(),
                entry_id: z.string(),
                matched_name: z.string(),
                match_score: z.number(),
                match_type: z.string(),
                programmes: z
                  .array(z.string())
                  .optional()
                  .describe(
                    'Sanctions programmes of the listed entry (absent in reports built before it was kept)',
                  ),
                listed_on: z
                  .string()
                  .nullable()
                  .optional()
                  .describe('Listing date YYYY-MM-DD; null when the list gives none'),
              })
              .strict(),
          )
          .describe('Up to 10 possible matches'),
        reason: z.string().optional(),
      })
      .strict(),
    pep: z
      .object({
        status: z.enum(['ok', 'unavailable', 'not_configured']),
        exposure: z.enum(['none', 'pep', 'rca']).nullable(),
        matches: z.array(
          z
            .object({
              caption: z.string(),
              schema_type: z.string(),
              topics: z.array(z.string()),
              datasets: z.array(z.string()),
              score: z.number(),
              countries: z.array(z.string()),
              birth_date: z.string().nullable(),
            })
            .strict(),
        ),
        reason: z.string().optional(),
      })
      .strict()
      .describe('PEP and relatives/close associates (OpenSanctions matching API)'),
    domain: z
      .object({
        status: z
          .enum(['ok', 'partial', 'unavailable', 'not_requested'])
          .describe(
            'ok: every domain probe answered; partial: some did (see probes); unavailable: none did (never clean); not_requested: no domain given',
          ),
        domain: z.string().nullable(),
        domain_age_days: z.number().int().nullable(),
        probes: z
          .record(z.string(), z.enum(['ok', 'unavailable']))
          .optional()
          .describe('Status of each domain probe (rdap, dns, tls), as in sources'),
      })
      .strict(),
    risk: z
      .object({
        trust_score: z.number().int().min(0).max(100).describe('0-100, 100 best'),
        trust_level: z.enum(['high', 'medium', 'low', 'very_low', 'blocked']).describe('From the cluster'),
        recommendation: z.string(),
        cluster: z.string(),
        confidence: z.number().min(0).max(1).nullable(),
        sources_checked: z.number().int().min(0),
      })
      .strict(),
    findings: z
      .array(
        z
          .object({
            factor: z.string(),
            source: z.string(),
            severity: z.string(),
            evidence: z.string(),
            status: z.string().optional(),
          })
          .strict(),
      )
      .describe('Every finding of the check, with its source'),
    correlations: z
      .object({
        status: z.literal('ok'),
        scope_note: z.string(),
        links: z.array(
          z
            .object({
              report_id: z.string(),
              kind: z
                .string()
                .describe('vat_number, iban, domain, wallet_address, register_number or director'),
              value: z.string(),
              entity_name: z.string().nullable(),
              created_at: z.string(),
            })
            .strict(),
        ),
      })
      .strict(),
    sources: z.array(SourceRow).describe('Every source with its status'),
    evidence: z
      .object({
        report_hash: z
          .string()
          .describe('Hex SHA-256 of the RFC 8785 canonical JSON of the report without evidence'),
        hash_algorithm: z.literal('SHA-256'),
        canonicalization: z.literal('RFC 8785 (JCS)'),
        signature: z
          .string()
          .describe('Detached compact JWS (header..signature), EdDSA over the same canonical bytes'),
        signature_algorithm: z.literal('EdDSA (Ed25519)'),
        key_id: z.string().describe('kid of the key in /.well-known/jwks.json'),
        jwks_url: z.string(),
      })
      .strict(),
  })
  .strict()

export type EntityReport = z.infer<typeof EntityReportSchema>
