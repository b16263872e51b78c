import type { Quality } from '../context.ts'
import { ServiceError } from '../errors.ts'
import type { SanctionsCoverage } from '../sanctions/coverage.ts'
import type { ListKey } from '../sanctions/types.ts'
import type { PortName, Ports } from './operation-context.ts'

/**
 * The charging rule (DESIGN "Honest answers"; docs/http-api.md "What is charged"): an operation
 * is charged only when it produced the answer it sells. Each operation names its essential
 * parts; when one of them cannot run because of the service's own state (lists still loading, a
 * source not configured, the chain not configured), the call answers 503 with a problem document
 * saying why and what the operator must do, before any charge: no key debit, no x402
 * settlement. A part whose upstream failed is not the service's state: it is reported
 * `unavailable` in an answer that is still worth its price.
 */

/** One essential part of an operation, as the charging table lists it. */
export interface EssentialPart {
  /** The part's name (as in the answer, e.g. `sanctions`, `register`, `chain`). */
  part: string
  /** When the operation needs it (`always`, `kvk_number given or NL name search`, ...). */
  when: string
  /** What the service must have for it to run (the operator's side). */
  needs: string
}

/** An essential part that cannot run now because of the service's own state. */
export interface PartNotReady {
  part: string
  /** loading: waiting helps (Retry-After); not_configured: only the operator can fix it. */
  reason: 'loading' | 'not_configured'
  /** What is missing, in words. */
  detail: string
  /** What the operator must set or run. */
  operator_action: string
  /** Seconds after which a retry may succeed; only for `loading`. */
  retry_after?: number
}

/** The essential parts of an operation and how to tell, before charging, whether they can run. */
export interface OperationEssentials<I, P extends PortName = PortName> {
  parts: readonly EssentialPart[]
  /** The essential parts that cannot run now for this input (empty: the call may be charged). */
  check(
    input: I,
    deps: Ports<P>,
    quality: Quality,
  ): readonly PartNotReady[] | Promise<readonly PartNotReady[]>
}

/** Seconds a caller waits for a list that is still loading. */
export const LISTS_LOADING_RETRY_AFTER = 60

const SOURCE_VARIABLE: Readonly<Record<ListKey, string>> = {
  ofac_sdn: 'SANCTIONS_OFAC_SOURCE',
  eu: 'SANCTIONS_EU_SOURCE',
  un: 'SANCTIONS_UN_SOURCE',
}

/**
 * The sanctions lists a result promises that cannot be screened because of the service's own
 * state: a list still loading (Retry-After), or one with no source and no stored copy. A list
 * whose download failed is an upstream failure: the answer reports it partial, charged.
 */
export function sanctionsNotReady(coverage: SanctionsCoverage, part = 'sanctions'): PartNotReady[] {
  return coverage.lists_not_checked.flatMap((list): PartNotReady[] => {
    if (list.reason === 'loading') {
      return [
        {
          part,
          reason: 'loading',
          detail: `the ${list.list} is still loading (${list.detail})`,
          operator_action: 'none: wait until GET /health shows the list loaded',
          retry_after: LISTS_LOADING_RETRY_AFTER,
        },
      ]
    }
    if (list.reason === 'not_configured') {
      return [
        {
          part,
          reason: 'not_configured',
          detail: `the ${list.list} is not loaded: no list source is configured and no copy is stored`,
          operator_action: `set ${SOURCE_VARIABLE[list.list_key]} (official, a URL or a file path), or run npm run lists:import -- <folder>`,
        },
      ]
    }
    return []
  })
}

/** The name-screen coverage of the sanctions port the checks use; no port: not configured. */
export function nameScreenNotReady(deps: Ports<'sanctions'>): PartNotReady[] {
  if (!deps.sanctions) return [sanctionsNotWired()]
  return sanctionsNotReady(deps.sanctions.coverage('names'))
}

function sanctionsNotWired(): PartNotReady {
  return {
    part: 'sanctions',
    reason: 'not_configured',
    detail: 'this service runs without sanctions lists',
    operator_action: 'start the service with its sanctions lists (SANCTIONS_*_SOURCE)',
  }
}

/** The lists held by the sanctions service itself (screen, agent check, watchlist). */
export function listsNotReady(
  deps: Ports<'sanctionsLists'>,
  promised: 'names' | 'addresses',
): PartNotReady[] {
  const lists = deps.sanctionsLists
  if (!lists) return [sanctionsNotWired()]
  return sanctionsNotReady(lists.coverage(promised === 'names' ? NAME_LISTS : ADDRESS_LISTS))
}

const NAME_LISTS: readonly ListKey[] = ['ofac_sdn', 'eu', 'un']
const ADDRESS_LISTS: readonly ListKey[] = ['ofac_sdn']

/**
 * The register a company check would ask (KVK for an NL number or NL name search, KBO for a BE
 * enterprise number), when the service cannot ask it: KVK without an API key, KBO without its
 * open data imported.
 */
export async function registerNotReady(
  deps: Ports<'companySources'>,
  wants: { kvk: boolean; kbo: boolean },
): Promise<PartNotReady[]> {
  const sources = deps.companySources ?? {}
  const out: PartNotReady[] = []
  if (wants.kvk && !sources.kvk) {
    out.push({
      part: 'register',
      reason: 'not_configured',
      detail: 'the KVK (Dutch business register) API is not configured on this service',
      operator_action: 'set KVK_API_KEY (and KVK_API_URL for another endpoint)',
    })
  }
  if (wants.kbo) {
    const state = sources.kbo ? await (sources.kbo.datasetState?.() ?? 'loaded') : 'absent'
    if (state === 'importing') {
      out.push({
        part: 'register',
        reason: 'loading',
        detail: 'the KBO/CBE open data (Belgian register) are being imported',
        operator_action: 'none: wait for the import to finish',
        retry_after: LISTS_LOADING_RETRY_AFTER,
      })
    } else if (state === 'absent') {
      out.push({
        part: 'register',
        reason: 'not_configured',
        detail: 'the KBO/CBE open data (Belgian register) are not imported on this service',
        operator_action: 'set KBO_DATA_DIR to an extract of the KBO open data and restart',
      })
    }
  }
  return out
}

/** The chain reader of agent checks and wallet balances, when no RPC is configured. */
export function chainNotReady(deps: Ports<'agentChain'>): PartNotReady[] {
  if (deps.agentChain) return []
  return [
    {
      part: 'chain',
      reason: 'not_configured',
      detail: 'no chain RPC is configured for AGENT_CHAIN, so balances and ERC-8004 data cannot be read',
      operator_action:
        'set BASE_RPC_URL (AGENT_CHAIN=base) or BASE_SEPOLIA_RPC_URL (AGENT_CHAIN=base-sepolia)',
    },
  ]
}

/**
 * The 503 of a call whose essential parts cannot run (spec: 503 for a failed dependency): the
 * problem document names every part, why, and what the operator must do. `Retry-After` only
 * when every missing part is loading (waiting helps); none when something is not configured.
 */
export function notReadyError(operationId: string, parts: readonly PartNotReady[]): ServiceError {
  const configured = parts.every((part) => part.reason === 'loading')
  const retryAfter = configured ? Math.max(...parts.map((part) => part.retry_after ?? 0)) : undefined
  const what = parts.map((part) => part.detail).join('; ')
  return new ServiceError(
    'unavailable',
    `${operationId} cannot give the answer it sells right now: ${what}. Nothing was charged.`,
    {
      ...(retryAfter ? { retryAfter } : {}),
      extra: {
        errorCode: configured ? 'service_not_ready' : 'service_not_configured',
        charged: false,
        parts_not_ready: parts.map(({ retry_after: _retry, ...part }) => part),
      },
    },
  )
}

/** The essential parts every company check shares: the name screen and the register it asks. */
export const SANCTIONS_PART: EssentialPart = {
  part: 'sanctions',
  when: 'always',
  needs: 'the OFAC SDN, EU and UN lists loaded (SANCTIONS_*_SOURCE or npm run lists:import)',
}
export const REGISTER_PART: EssentialPart = {
  part: 'register',
  when: 'NL (KVK by number or name) and BE with an enterprise or BE VAT number (KBO)',
  needs: 'KVK_API_KEY for NL; the KBO open data imported (KBO_DATA_DIR) for BE',
}

/** Which register a company check of this country and these numbers asks. */
export function registersWanted(
  country: string,
  numbers: { kvk?: boolean; kbo: boolean; nlNameSearch?: boolean },
): { kvk: boolean; kbo: boolean } {
  return {
    kvk: country === 'NL' && (numbers.kvk === true || numbers.nlNameSearch === true),
    kbo: numbers.kbo,
  }
}

/** Sources that describe the place, not the entity: an answer resting on them alone says nothing. */
const CONTEXT_ONLY_SOURCES = new Set(['country_risk'])

/**
 * A check in which no source about the entity answered (only the country's risk could be read,
 * every other source failed) sells nothing: a trust score and a "reject" built on penalties for
 * missing answers would be a verdict on the outage, not on the entity. It is a 503, charged
 * nothing (the pipeline cancels the charge when the run throws), with a Retry-After: every
 * service-state cause was refused before the charge, so what is left are upstream failures.
 */
export function requireEntityEvidence(
  operationId: string,
  sources: readonly { source: string; status: string; reason?: string }[],
): void {
  const about = sources.filter((source) => !CONTEXT_ONLY_SOURCES.has(source.source))
  if (about.some((source) => source.status === 'ok' || source.status === 'partial')) return
  const failed = about.map((source) => `${source.source} (${source.reason ?? source.status})`).join(', ')
  throw new ServiceError(
    'unavailable',
    `${operationId}: no source about the entity answered (${failed || 'none was asked'}); only the country risk could be read, which is not an answer about the entity. Nothing was charged; try again later.`,
    {
      retryAfter: 30,
      extra: {
        errorCode: 'no_source_answered',
        charged: false,
        unavailable_sources: about.map(({ source, reason }) => ({ source, reason: reason ?? 'unavailable' })),
      },
    },
  )
}
