import { performance } from 'node:perf_hooks'
import { ServiceError } from '../errors.ts'
import type { CreditReport, CreditReportProvider } from '../sources/credit-report.ts'
import type { MediaArticle, MediaSearch } from '../sources/gdelt.ts'
import type { InsolvencyRecord, InsolvencySearch } from '../sources/insolvency-register.ts'
import type { SourceResult } from '../sources/source-result.ts'
import type { PepMatch, PepQuery, PepScreen } from '../sources/yente.ts'

/**
 * The ports of a deep check (spec: POST /v1/entity/deep-check), declared here by their consumer.
 * A missing port is a source that cannot be reached: a tier that needs it answers 503.
 */
export interface DeepCheckSources {
  /** PEP and relative/close-associate screening (yente `/match`). */
  pep?: { readonly source: string; match(query: PepQuery): Promise<SourceResult<PepScreen>> }
  /** Dutch insolvency register (CIR). */
  insolvency?: {
    readonly source: string
    search(query: { kvkNumber?: string; name: string }): Promise<SourceResult<InsolvencySearch>>
  }
  /** Adverse media (GDELT DOC 2.0), enhanced tier. */
  media?: { readonly source: string; adverseMedia(name: string): Promise<SourceResult<MediaSearch>> }
  /** Italian credit report, credit tier (off unless configured). */
  credit?: CreditReportProvider
}

/** Source names as reported in `sources_returned` and in the 503's errorCode. */
export const DEEP_SOURCE_NAMES = {
  pep: 'opensanctions',
  insolvency: 'insolvency_register',
  media: 'gdelt',
  credit: 'credit_report',
} as const

export interface DeepCheckRequest {
  entity_name: string
  country: string
  kvk_number?: string
  credit_report_identifier?: string
  /** fresh: PEP + insolvency; enhanced: + adverse media. */
  tier: 'fresh' | 'enhanced'
}

export interface PepExtended {
  screened: boolean
  /** pep: a match holds role.pep; rca: only relatives/close associates matched; none otherwise. */
  pep_exposure: 'none' | 'pep' | 'rca'
  match_count: number
  matches: Omit<PepMatch, 'match' | 'id'>[]
  truncated: boolean
  retrieved_at: string
  dataset: string
}

export interface InsolvencyRecords {
  screened: boolean
  /** The register covers the Netherlands only: false (and not asked) elsewhere. */
  applicable: boolean
  jurisdiction: 'NL'
  query_by: 'kvk_number' | 'name' | null
  found: boolean
  match_count: number
  records: InsolvencyRecord[]
  truncated: boolean
  retrieved_at: string | null
}

export interface AdverseMedia {
  screened: boolean
  source: string
  query: string
  timespan: string
  article_count: number
  articles: MediaArticle[]
  truncated: boolean
  retrieved_at: string
}

export interface DeepCheckOutcome {
  tiers: ('fresh' | 'enhanced' | 'credit')[]
  sources_returned: string[]
  pep_extended: PepExtended
  insolvency_records: InsolvencyRecords
  adverse_media?: AdverseMedia
  credit_report?: CreditReport & { provider: string; retrieved_at: string }
  processing_time_ms: number
}

/**
 * A source the requested tier needs did not answer: 503, nothing charged (spec: deep check).
 * Retry-After only when a source was reached and failed; a source that is not configured cannot
 * come back by waiting (the operation's essentials refuse that case before any charge).
 */
function sourceUnavailable(failures: { source: string; reason: string; detail?: string }[]): ServiceError {
  const names = failures.map((failure) => failure.source)
  const configured = failures.every((failure) => failure.reason !== 'not_configured')
  return new ServiceError(
    'unavailable',
    configured
      ? `deep-check source unreachable: ${names.join(', ')}; nothing was charged, try again later`
      : `deep-check source not configured on this service: ${names.join(', ')}; nothing was charged`,
    {
      ...(configured ? { retryAfter: 30 } : {}),
      extra: {
        charged: false,
        errorCode: `${names[0]}_unavailable`,
        unavailable_sources: failures.map(({ source, reason }) => ({ source, reason })),
      },
    },
  )
}

/** PEP exposure of yente's matches (candidates at or above its threshold). */
export function pepExtendedOf(screen: PepScreen, retrievedAt: string): PepExtended {
  const matched = screen.results.filter((result) => result.match)
  const topics = new Set(matched.flatMap((result) => result.topics))
  return {
    screened: true,
    pep_exposure: topics.has('role.pep') ? 'pep' : topics.has('role.rca') ? 'rca' : 'none',
    match_count: matched.length,
    matches: matched.map(({ match: _match, id: _id, ...rest }) => rest),
    truncated: screen.total > screen.results.length,
    retrieved_at: retrievedAt,
    dataset: screen.dataset,
  }
}

/**
 * The deep check: every source the tier needs, at once (so it costs the slowest source), and
 * all-or-nothing: when one of them cannot be reached the call fails with a 503 naming it (and the
 * payment pipeline charges nothing), never a partial answer that could read as clean.
 * The credit tier is opted into with credit_report_identifier: Italy only, and only when the
 * operator configured a provider (otherwise 403 credit_tier_not_enabled).
 */
export async function runDeepCheck(
  request: DeepCheckRequest,
  sources: DeepCheckSources,
): Promise<DeepCheckOutcome> {
  const started = performance.now()
  const wantCredit = request.credit_report_identifier !== undefined
  if (wantCredit && request.country !== 'IT') {
    throw new ServiceError('validation_failed', 'invalid request', {
      fields: [
        {
          field: 'credit_report_identifier',
          message: 'the credit tier covers Italian companies only (country IT)',
        },
      ],
    })
  }
  if (wantCredit && !sources.credit) {
    throw new ServiceError(
      'forbidden',
      'the credit tier (Italian credit reports) is not enabled on this service',
      {
        extra: { errorCode: 'credit_tier_not_enabled' },
      },
    )
  }
  const dutch = request.country === 'NL'
  const missing: { source: string; reason: string }[] = []
  const notConfigured = (source: string) => {
    missing.push({ source, reason: 'not_configured' })
    return undefined
  }
  const pepCall = sources.pep
    ? sources.pep.match({ name: request.entity_name, country: request.country })
    : notConfigured(DEEP_SOURCE_NAMES.pep)
  const insolvencyCall = !dutch
    ? undefined
    : sources.insolvency
      ? sources.insolvency.search({ kvkNumber: request.kvk_number, name: request.entity_name })
      : notConfigured(DEEP_SOURCE_NAMES.insolvency)
  const mediaCall =
    request.tier !== 'enhanced'
      ? undefined
      : sources.media
        ? sources.media.adverseMedia(request.entity_name)
        : notConfigured(DEEP_SOURCE_NAMES.media)
  const creditCall =
    wantCredit && sources.credit && request.credit_report_identifier
      ? sources.credit.report(request.credit_report_identifier)
      : undefined
  const [pep, insolvency, media, credit] = await Promise.all([pepCall, insolvencyCall, mediaCall, creditCall])
  const failures: { source: string; reason: string; detail?: string }[] = [...missing]
  for (const result of [pep, insolvency, media, credit]) {
    if (result?.status === 'unavailable') failures.push({ source: result.source, reason: result.reason })
  }
  if (failures.length > 0 || pep?.status !== 'ok') throw sourceUnavailable(failures)
  const returned = [pep, insolvency, media, credit].filter((result) => result?.status === 'ok')
  const outcome: DeepCheckOutcome = {
    tiers: [request.tier === 'enhanced' ? 'enhanced' : 'fresh', ...(wantCredit ? (['credit'] as const) : [])],
    sources_returned: returned.map((result) => result?.source ?? ''),
    pep_extended: pepExtendedOf(pep.data, pep.fetched_at),
    insolvency_records:
      insolvency?.status === 'ok'
        ? {
            screened: true,
            applicable: true,
            jurisdiction: 'NL',
            query_by: insolvency.data.query_by,
            found: insolvency.data.records.length > 0,
            match_count: insolvency.data.match_count,
            records: insolvency.data.records,
            truncated: insolvency.data.truncated,
            retrieved_at: insolvency.fetched_at,
          }
        : {
            screened: false,
            applicable: false,
            jurisdiction: 'NL',
            query_by: null,
            found: false,
            match_count: 0,
            records: [],
            truncated: false,
            retrieved_at: null,
          },
    processing_time_ms: 0,
  }
  if (media?.status === 'ok') {
    outcome.adverse_media = {
      screened: true,
      source: media.source,
      query: media.data.query,
      timespan: media.data.timespan,
      article_count: media.data.articles.length,
      articles: media.data.articles,
      truncated: media.data.truncated,
      retrieved_at: media.fetched_at,
    }
  }
  if (credit?.status === 'ok') {
    outcome.credit_report = { ...credit.data, provider: credit.source, retrieved_at: credit.fetched_at }
  }
  outcome.processing_time_ms = Math.round(performance.now() - started)
  return outcome
}
