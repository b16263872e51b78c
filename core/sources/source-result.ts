/**
 * What every upstream call returns (DESIGN "Upstream sources"): data, never a throw for upstream
 * trouble. A source that did not answer is `unavailable` with a reason, never clean
 * (spec: "Report source status: ok, or unavailable").
 *
 * "No such company" is an answer, not trouble: it is `status: 'ok'` with data saying not found.
 */
export type SourceResult<T> = SourceOk<T> | SourceUnavailable

export interface SourceOk<T> {
  source: string
  status: 'ok'
  data: T
  /** ISO timestamp from the injected clock, when the call started. */
  fetched_at: string
  /** Wall time the call took (monotonic clock), whole milliseconds. */
  latency_ms: number
}

export interface SourceUnavailable {
  source: string
  status: 'unavailable'
  /** One of {@link UnavailableReason}; stable, meant for machines and reports. */
  reason: string
  /** Human detail (upstream error code, message), never needed to decide anything. */
  detail?: string
  fetched_at: string
  latency_ms: number
}

/**
 * The reasons the adapters in this folder give. A closed list so reports can explain them.
 * - `timeout`: no complete answer within the call's timeout.
 * - `connection_refused`, `network_error`: the upstream could not be reached.
 * - `circuit_open`: the breaker short-circuited the call after repeated failures.
 * - `auth_failed`: the upstream refused our credentials (401/403).
 * - `rate_limited`: the upstream asked us to slow down (429 or its own code).
 * - `upstream_busy`: the upstream said "try again later" (e.g. KVK IPD1002/1003, VIES MS_UNAVAILABLE).
 * - `upstream_error`: 5xx or an upstream error code meaning it failed.
 * - `request_rejected`: the upstream rejected our request as malformed (a bug on our side or bad input).
 * - `invalid_response`: the upstream answered something we cannot read.
 * - `address_refused`: the target resolved to a private/loopback/link-local address (SSRF guard).
 * - `unresolvable`: a user-supplied host name does not resolve (TLS probe).
 * - `resolver_unreliable`: the DNS resolver answers NXDOMAIN, or no records, even for the SOA of the
 *   parent zone (e.g. `com`), so it cannot tell whether a name exists or has mail records: an
 *   environment fault, never "does not exist" or "no mail server".
 * - `no_rdap_server`: the IANA bootstrap lists no RDAP service for the domain's TLD.
 * - `dataset_not_loaded`: a local copy of an open data set (KBO) was never imported.
 * - `store_error`: the local store behind a source failed.
 * - `internal_error`: a bug in the adapter; the call was contained so other sources still count.
 */
export type UnavailableReason =
  | 'timeout'
  | 'connection_refused'
  | 'network_error'
  | 'circuit_open'
  | 'auth_failed'
  | 'rate_limited'
  | 'upstream_busy'
  | 'upstream_error'
  | 'request_rejected'
  | 'invalid_response'
  | 'address_refused'
  | 'unresolvable'
  | 'resolver_unreliable'
  | 'no_rdap_server'
  | 'dataset_not_loaded'
  | 'store_error'
  | 'internal_error'

/**
 * Thrown inside an adapter to say "the upstream failed in this way"; the call runner turns it
 * into an `unavailable` result and counts it against the breaker. Never escapes this folder's
 * public functions.
 */
export class UpstreamFailure extends Error {
  readonly reason: UnavailableReason
  readonly detail?: string

  constructor(reason: UnavailableReason, detail?: string) {
    super(detail ? `${reason}: ${detail}` : reason)
    this.name = 'UpstreamFailure'
    this.reason = reason
    this.detail = detail
  }
}
