import {
  type Address,
  getBase58Decoder,
  getBase64Decoder,
  getBase64Encoder,
  getTransactionDecoder,
  type Signature,
} from '@solana/kit'
import { FailedTransactionMetadata, type LiteSVM } from 'litesvm'
import { rpcErrorOf as rpcErr } from '../solana/litesvm-chain.ts'
import type { FakeCommonOptions } from './fake-behaviour.ts'
import { type FakeHttpServer, type FakeResponse, startFakeHttpServer } from './fake-http-server.ts'

/**
 * Errors the fake answers with in `error` mode:
 * - `rate_limited`: HTTP 429 with a JSON-RPC error body, as public RPCs throttle.
 * - `server_error`: HTTP 500, not JSON.
 * - `node_unhealthy`: HTTP 200 with JSON-RPC error -32005 "Node is unhealthy".
 */
export type FakeSolanaRpcError = 'rate_limited' | 'server_error' | 'node_unhealthy'

const SLOT_BASE = 350_000_000
/** Rent-exempt accounts carry rentEpoch u64::MAX, which a JS number cannot hold: written in raw. */
const RENT_EPOCH_MARKER = 'RENT_EPOCH_U64_MAX'
const RENT_EPOCH_U64_MAX = '18446744073709551615'

/**
 * A Solana JSON-RPC 2.0 endpoint on 127.0.0.1 backed by a litesvm cluster, answering in the real
 * response format (https://solana.com/docs/rpc/http): `getAccountInfo` (base64), `getLatestBlockhash`,
 * `isBlockhashValid`, `sendTransaction` (base64, preflight failure as error -32002 with `data.err`),
 * `getSignatureStatuses`, `getSlot`, `getBlockHeight`, `getHealth`, `getMinimumBalanceForRentExemption`.
 * Unknown methods get -32601. The official `@x402/svm` client reads the mint and the blockhash
 * through it; the service's JSON-RPC adapter sends and confirms through it.
 */
export async function startFakeSolanaRpcServer(
  svm: LiteSVM,
  options: FakeCommonOptions = {},
): Promise<FakeHttpServer> {
  const context = () => ({ slot: SLOT_BASE + Number(svm.getClock().slot), apiVersion: '2.2.7' })
  const lastValidBlockHeight = () => SLOT_BASE + Number(svm.getClock().slot) + 150

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getHealth: () => 'ok',
    getSlot: () => context().slot,
    getBlockHeight: () => context().slot,
    getMinimumBalanceForRentExemption: (params) =>
      Number(svm.minimumBalanceForRentExemption(BigInt(Number(params[0])))),
    getLatestBlockhash: () => ({
      context: context(),
      value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: lastValidBlockHeight() },
    }),
    isBlockhashValid: (params) => ({ context: context(), value: params[0] === svm.latestBlockhash() }),
    getAccountInfo: (params) => {
      const account = svm.getAccount(String(params[0]) as Address)
      if (!account.exists) return { context: context(), value: null }
      return {
        context: context(),
        value: {
          data: [getBase64Decoder().decode(account.data), 'base64'],
          executable: account.executable,
          lamports: Number(account.lamports),
          owner: account.programAddress,
          rentEpoch: RENT_EPOCH_MARKER,
          space: Number(account.space ?? account.data.length),
        },
      }
    },
    simulateTransaction: (params) => {
      const err = simulateUnsignedJson(svm, String(params[0]))
      return {
        context: context(),
        value: {
          accounts: null,
          err,
          innerInstructions: null,
          loadedAccountsDataSize: 0,
          logs: [],
          replacementBlockhash: null,
          returnData: null,
          unitsConsumed: 0,
        },
      }
    },
    getSignatureStatuses: (params) => {
      const signatures = Array.isArray(params[0]) ? (params[0] as string[]) : []
      return {
        context: context(),
        value: signatures.map((signature) => {
          const found = svm.getTransaction(signature as Signature)
          if (!found) return null
          const err = found instanceof FailedTransactionMetadata ? rpcErr(found) : null
          return {
            slot: context().slot,
            confirmations: null,
            err,
            status: err === null ? { Ok: null } : { Err: err },
            confirmationStatus: 'finalized',
          }
        }),
      }
    },
  }

  return startFakeHttpServer(
    'solana-rpc',
    (request, behaviour): FakeResponse => {
      let call: { id?: unknown; method?: unknown; params?: unknown }
      try {
        call = JSON.parse(request.body)
      } catch {
        return rpcError(null, -32700, 'Parse error')
      }
      const id = call.id ?? null
      if (behaviour.mode === 'error') {
        const error = (behaviour.error ?? 'server_error') as FakeSolanaRpcError
        if (error === 'rate_limited') {
          return {
            status: 429,
            body: {
              jsonrpc: '2.0',
              error: { code: 429, message: 'Too many requests for a specific RPC call' },
              id,
            },
          }
        }
        if (error === 'node_unhealthy') return rpcError(id, -32005, 'Node is unhealthy')
        return { status: 500, body: 'Internal Server Error' }
      }
      const params = Array.isArray(call.params) ? call.params : []
      if (call.method === 'sendTransaction') return sendTransaction(id, params)
      const method = typeof call.method === 'string' ? methods[call.method] : undefined
      if (!method) return rpcError(id, -32601, 'Method not found')
      const text = JSON.stringify({ jsonrpc: '2.0', result: method(params), id }).replaceAll(
        `"${RENT_EPOCH_MARKER}"`,
        RENT_EPOCH_U64_MAX,
      )
      return { status: 200, headers: { 'content-type': 'application/json' }, body: text }
    },
    options,
  )

  function sendTransaction(id: unknown, params: unknown[]): FakeResponse {
    let transaction: ReturnType<ReturnType<typeof getTransactionDecoder>['decode']>
    try {
      transaction = getTransactionDecoder().decode(getBase64Encoder().encode(String(params[0])))
    } catch {
      return rpcError(id, -32602, 'invalid transaction: failed to deserialize VersionedTransaction')
    }
    const firstSignature = Object.values(transaction.signatures)[0]
    if (firstSignature && svm.getTransaction(getBase58Decoded(firstSignature))) {
      return preflightFailure(id, 'AlreadyProcessed', 'This transaction has already been processed')
    }
    let result: ReturnType<LiteSVM['sendTransaction']>
    try {
      result = svm.sendTransaction(transaction as never)
    } catch {
      return rpcError(id, -32003, 'Transaction signature verification failure')
    }
    if (result instanceof FailedTransactionMetadata) {
      const err = rpcErr(result)
      return preflightFailure(id, err, result.toString(), result.meta().logs())
    }
    return {
      status: 200,
      body: { jsonrpc: '2.0', result: firstSignature ? getBase58Decoded(firstSignature) : '', id },
    }
  }
}

/** A signature's base58 text (the transaction id). */
function getBase58Decoded(bytes: Uint8Array): Signature {
  return getBase58Decoder().decode(bytes) as Signature
}

function rpcError(id: unknown, code: number, message: string): FakeResponse {
  return { status: 200, body: { jsonrpc: '2.0', error: { code, message }, id } }
}

/** Error -32002 as a node answers a failed preflight simulation. */
function preflightFailure(id: unknown, err: unknown, detail: string, logs: string[] = []): FakeResponse {
  return {
    status: 200,
    body: {
      jsonrpc: '2.0',
      error: {
        code: -32002,
        message: `Transaction simulation failed: ${detail}`,
        data: {
          accounts: null,
          err,
          innerInstructions: null,
          logs,
          replacementBlockhash: null,
          returnData: null,
          unitsConsumed: 0,
        },
      },
      id,
    },
  }
}

/** `simulateTransaction` with `sigVerify: false`: the JSON-RPC `err` value, or null. */
function simulateUnsignedJson(svm: LiteSVM, wire: string): unknown {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire))
  svm.withSigverify(false)
  try {
    const result = svm.simulateTransaction(transaction as never)
    return result instanceof FailedTransactionMetadata ? rpcErr(result) : null
  } finally {
    svm.withSigverify(true)
  }
}
