import { performance } from 'node:perf_hooks'
import type { Clock } from '../context.ts'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { type SourceResult, UpstreamFailure } from './source-result.ts'

export interface SourceCallOptions<T> {
  /** Source name reported in the result ("kvk", "vies", ...). */
  source: string
  clock: Clock
  /** Hard limit for the whole call; the signal passed to `call` aborts then. */
  timeoutMs: number
  breaker?: CircuitBreaker
  /**
   * The upstream work. Throw {@link UpstreamFailure} for upstream trouble; any other throw is
   * treated as upstream trouble too (network errors surface as TypeError from fetch).
   */
  call: (signal: AbortSignal) => Promise<T>
}

/**
 * Runs one upstream call under the rules of DESIGN "Upstream sources": a timeout on every call,
 * the source's circuit breaker, and data instead of throws (`unavailable` with a reason).
 * Used by every adapter in this folder so they behave the same.
 */
export async function runSourceCall<T>(options: SourceCallOptions<T>): Promise<SourceResult<T>> {
  const { source, clock, timeoutMs, breaker } = options
  const fetchedAt = clock.now().toISOString()
  const started = performance.now()
  const latency = () => Math.max(0, Math.round(performance.now() - started))

  if (breaker && !breaker.tryAcquire()) {
    return { source, status: 'unavailable', reason: 'circuit_open', fetched_at: fetchedAt, latency_ms: 0 }
  }

  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const failure = new UpstreamFailure('timeout', `no answer within ${timeoutMs} ms`)
      controller.abort(failure)
      reject(failure)
    }, timeoutMs)
  })

  try {
    const data = await Promise.race([options.call(controller.signal), timedOut])
    breaker?.recordSuccess()
    return { source, status: 'ok', data, fetched_at: fetchedAt, latency_ms: latency() }
  } catch (error) {
    const failure = controller.signal.aborted
      ? (controller.signal.reason as UpstreamFailure)
      : toFailure(error)
    if (NEUTRAL_REASONS.has(failure.reason)) breaker?.release()
    else breaker?.recordFailure(failure.detail ? `${failure.reason}: ${failure.detail}` : failure.reason)
    const result: SourceResult<T> = {
      source,
      status: 'unavailable',
      reason: failure.reason,
      fetched_at: fetchedAt,
      latency_ms: latency(),
    }
    if (failure.detail) result.detail = failure.detail
    return result
  } finally {
    clearTimeout(timer)
    if (!controller.signal.aborted) controller.abort(new UpstreamFailure('internal_error', 'call finished'))
  }
}

/** Outcomes that are not the upstream's fault: they neither open nor close the circuit. */
const NEUTRAL_REASONS = new Set<string>([
  'address_refused',
  'unresolvable',
  'no_rdap_server',
  'dataset_not_loaded',
  'internal_error',
])

const REFUSED = new Set(['ECONNREFUSED'])
const NETWORK = new Set([
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
])

/** Maps anything thrown by an adapter (fetch TypeError with a cause, socket errors) to a failure. */
export function toFailure(error: unknown): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new UpstreamFailure('timeout', error.message)
  }
  const code = errorCode(error)
  if (code && REFUSED.has(code)) return new UpstreamFailure('connection_refused', code)
  if (code?.startsWith('UND_ERR_') && code.endsWith('TIMEOUT')) return new UpstreamFailure('timeout', code)
  if (code && NETWORK.has(code)) return new UpstreamFailure('network_error', code)
  if (code) return new UpstreamFailure('network_error', code)
  if (error instanceof SyntaxError) return new UpstreamFailure('invalid_response', error.message)
  const message = error instanceof Error ? error.message : String(error)
  return new UpstreamFailure('network_error', message)
}

/** The `code` of an error or of its cause chain (fetch wraps socket errors in `cause`). */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
