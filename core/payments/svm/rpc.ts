/**
 * The small port through which the service talks to a Solana cluster for x402 SVM payments:
 * is a blockhash still valid, send a fully signed transaction, read a signature's
 * status. The real adapter below speaks Solana JSON-RPC; tests also run one that executes on
 * litesvm in-process (test/support/solana).
 */

/** Where a transaction stands on the cluster. */
export type SolanaSignatureStatus =
  | { state: 'confirmed' }
  | { state: 'failed'; error: string }
  /** Seen by the cluster but not yet confirmed. */
  | { state: 'processed' }
  /** Unknown to the cluster (never sent, dropped, or its blockhash expired before it landed). */
  | { state: 'not_found' }

/**
 * A refusal or an outage of the RPC. `unavailable`: unreachable, timed out, 5xx/429 or an
 * unreadable answer (retry later). `rejected`: the RPC answered with an error, e.g. a failed
 * preflight simulation; `reason` holds the transaction error name when there is one
 * (`BlockhashNotFound`, `AlreadyProcessed`, `InsufficientFundsForFee`, `custom:1` for an SPL Token
 * InsufficientFunds).
 */
export class SolanaRpcError extends Error {
  readonly kind: 'unavailable' | 'rejected'
  readonly reason?: string

  constructor(kind: 'unavailable' | 'rejected', message: string, reason?: string) {
    super(message)
    this.name = 'SolanaRpcError'
    this.kind = kind
    this.reason = reason
  }
}

export interface SolanaRpc {
  /** `isBlockhashValid`: whether a transaction with this blockhash can still land. */
  isBlockhashValid(blockhash: string): Promise<boolean>
  /** `sendTransaction` of a base64 wire transaction (with preflight); resolves to its signature (base58). */
  sendTransaction(wireTransactionBase64: string): Promise<string>
  /** `getSignatureStatuses` with `searchTransactionHistory`. */
  signatureStatus(signature: string): Promise<SolanaSignatureStatus>
  /**
   * `simulateTransaction` of a base64 wire transaction as it stands (signatures not verified, the
   * blockhash not replaced, as the x402 facilitator simulates): the transaction error name it
   * would fail with, or null.
   */
  simulateTransaction(wireTransactionBase64: string): Promise<{ err: string | null }>
}

export interface SolanaJsonRpcOptions {
  url: string
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number
  /** Commitment for blockhash checks and preflight (default `confirmed`). */
  commitment?: 'processed' | 'confirmed' | 'finalized'
  fetch?: typeof fetch
}

/** Names the transaction error of a JSON-RPC `err` value: `BlockhashNotFound`, `custom:1`, ... */
export function transactionErrorName(err: unknown): string {
  if (typeof err === 'string') return err
  if (err && typeof err === 'object') {
    const instructionError = (err as { InstructionError?: unknown }).InstructionError
    if (Array.isArray(instructionError)) {
      const inner = instructionError[1]
      if (inner && typeof inner === 'object' && 'Custom' in inner) {
        return `custom:${String((inner as { Custom: unknown }).Custom)}`
      }
      return typeof inner === 'string' ? inner : JSON.stringify(inner)
    }
    const [key] = Object.keys(err)
    if (key) return key
  }
  return JSON.stringify(err)
}

/**
 * Solana JSON-RPC 2.0 over HTTP POST (https://solana.com/docs/rpc). Methods used:
 * `isBlockhashValid`, `sendTransaction` (base64 encoding, preflight on), `getSignatureStatuses`,
 * `simulateTransaction`.
 */
export function createSolanaJsonRpc(options: SolanaJsonRpcOptions): SolanaRpc {
  const doFetch = options.fetch ?? fetch
  const timeoutMs = options.timeoutMs ?? 10_000
  const commitment = options.commitment ?? 'confirmed'
  let nextId = 1

  async function call(method: string, params: unknown[]): Promise<unknown> {
    let response: Response
    try {
      response = await doFetch(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (error) {
      throw new SolanaRpcError('unavailable', `Solana RPC ${method} unreachable: ${String(error)}`)
    }
    const text = await response.text().catch(() => '')
    if (response.status >= 500 || response.status === 429) {
      throw new SolanaRpcError('unavailable', `Solana RPC ${method} answered ${response.status}`)
    }
    let body: { result?: unknown; error?: { code?: number; message?: string; data?: { err?: unknown } } }
    try {
      body = JSON.parse(text)
    } catch {
      throw new SolanaRpcError('unavailable', `Solana RPC ${method} answered ${response.status}, not JSON`)
    }
    if (body.error) {
      const reason =
        body.error.data?.err === undefined ? undefined : transactionErrorName(body.error.data.err)
      throw new SolanaRpcError(
        'rejected',
        `Solana RPC ${method}: ${body.error.message ?? 'error'} (${body.error.code ?? '?'})`,
        reason,
      )
    }
    if (!('result' in body)) throw new SolanaRpcError('unavailable', `Solana RPC ${method}: no result`)
    return body.result
  }

  return {
    async isBlockhashValid(blockhash) {
      const result = (await call('isBlockhashValid', [blockhash, { commitment }])) as { value?: unknown }
      if (typeof result?.value !== 'boolean')
        throw new SolanaRpcError('unavailable', 'isBlockhashValid: bad answer')
      return result.value
    },
    async sendTransaction(wire) {
      const result = await call('sendTransaction', [
        wire,
        { encoding: 'base64', skipPreflight: false, preflightCommitment: commitment, maxRetries: 5 },
      ])
      if (typeof result !== 'string') throw new SolanaRpcError('unavailable', 'sendTransaction: bad answer')
      return result
    },
    async simulateTransaction(wire) {
      const result = (await call('simulateTransaction', [
        wire,
        { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: false, commitment },
      ])) as { value?: { err?: unknown } }
      if (!result?.value || typeof result.value !== 'object') {
        throw new SolanaRpcError('unavailable', 'simulateTransaction: bad answer')
      }
      const err = result.value.err
      return { err: err === null || err === undefined ? null : transactionErrorName(err) }
    },
    async signatureStatus(signature) {
      const result = (await call('getSignatureStatuses', [
        [signature],
        { searchTransactionHistory: true },
      ])) as {
        value?: unknown[]
      }
      if (!Array.isArray(result?.value))
        throw new SolanaRpcError('unavailable', 'getSignatureStatuses: bad answer')
      const status = result.value[0] as
        | { err?: unknown; confirmationStatus?: string | null; confirmations?: number | null }
        | null
        | undefined
      if (!status) return { state: 'not_found' }
      if (status.err !== null && status.err !== undefined) {
        return { state: 'failed', error: transactionErrorName(status.err) }
      }
      const confirmed =
        status.confirmationStatus === 'confirmed' ||
        status.confirmationStatus === 'finalized' ||
        (status.confirmationStatus == null && status.confirmations == null)
      return confirmed ? { state: 'confirmed' } : { state: 'processed' }
    },
  }
}
