import {
  type Address,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  HttpRequestError,
  http,
  NonceTooLowError,
  type PublicClient,
  parseSignature,
  TimeoutError,
  WaitForTransactionReceiptTimeoutError,
} from 'viem'
import { nonceManager, privateKeyToAccount } from 'viem/accounts'
import type { PaymentErrorCode } from '../error-codes.ts'
import type { SettleResult, Settler } from '../settle-result.ts'
import type { VerifiedPayment } from '../verify-result.ts'
import { EIP3009_TOKEN_ABI } from './eip3009.ts'

export interface OnChainSettlerOptions {
  /** Operator key that pays gas and submits `transferWithAuthorization`. */
  privateKey: Hex
  /** JSON-RPC URL per CAIP-2 network (e.g. `{ 'eip155:8453': 'https://...' }`). */
  rpcUrls: Readonly<Record<string, string>>
  /** How long to wait for the receipt before reporting `settlement_timeout` (default 60 s). */
  receiptTimeoutMs?: number
  /** Per-request RPC timeout (default 10 s). */
  rpcTimeoutMs?: number
}

/** What became of a settlement transaction (for the ledger's retries and start-up sweep). */
export type TransactionStatus = 'success' | 'reverted' | 'pending' | 'unavailable'

export interface OnChainSettler extends Settler {
  /** Receipt status of a transaction sent earlier (e.g. after `settlement_timeout`). */
  transactionStatus(network: string, transaction: Hex): Promise<TransactionStatus>
  /**
   * Whether the payment's EIP-3009 nonce is already used on chain (by us or anyone): a used one
   * must not be sent again. Undefined when the chain cannot be asked.
   */
  authorizationUsed(payment: VerifiedPayment): Promise<boolean | undefined>
}

interface NetworkClients {
  chain: Chain
  publicClient: PublicClient
  walletClient: ReturnType<typeof createWalletClient>
}

/**
 * Settles EVM payments directly on chain (DESIGN: Payments, settlement with the operator's key):
 * simulates then sends USDC `transferWithAuthorization(from, to, value, validAfter, validBefore,
 * nonce, v, r, s)` and waits for the receipt. A revert is diagnosed into `nonce_replay` (already
 * used on chain), `insufficient_funds` or `settlement_failed`; an unreachable RPC or a receipt that
 * does not come in time is reported retryable, never thrown.
 */
export function createOnChainSettler(options: OnChainSettlerOptions): OnChainSettler {
  const account = privateKeyToAccount(options.privateKey, { nonceManager })
  const receiptTimeoutMs = options.receiptTimeoutMs ?? 60_000
  const rpcTimeoutMs = options.rpcTimeoutMs ?? 10_000
  const clients = new Map<string, NetworkClients>()
  const sendQueues = new Map<string, Promise<unknown>>()
  const serialised = <T>(network: string, task: () => Promise<T>): Promise<T> => {
    const previous = sendQueues.get(network) ?? Promise.resolve()
    const run = previous.then(task, task)
    sendQueues.set(
      network,
      run.catch(() => {}),
    )
    return run
  }

  const clientsFor = (network: string, chainId: number): NetworkClients | undefined => {
    const url = options.rpcUrls[network]
    if (!url) return undefined
    let entry = clients.get(network)
    if (!entry) {
      const chain = defineChain({
        id: chainId,
        name: network,
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [url] } },
      })
      const transport = http(url, { timeout: rpcTimeoutMs, retryCount: 0 })
      entry = {
        chain,
        publicClient: createPublicClient({ chain, transport }) as PublicClient,
        walletClient: createWalletClient({ account, chain, transport }),
      }
      clients.set(network, entry)
    }
    return entry
  }

  const networkChainId = (network: string): number | undefined => {
    const id = Number(network.startsWith('eip155:') ? network.slice('eip155:'.length) : Number.NaN)
    return Number.isSafeInteger(id) ? id : undefined
  }

  return {
    async transactionStatus(network, transaction) {
      const chainId = networkChainId(network)
      const net = chainId === undefined ? undefined : clientsFor(network, chainId)
      if (!net) return 'unavailable'
      try {
        const receipt = await net.publicClient.getTransactionReceipt({ hash: transaction })
        return receipt.status === 'success' ? 'success' : 'reverted'
      } catch (error) {
        if (error instanceof BaseError && error.name === 'TransactionReceiptNotFoundError') return 'pending'
        return 'unavailable'
      }
    },

    async authorizationUsed(payment) {
      const chainId = payment.requirement.network.chainId
      const net = typeof chainId === 'number' ? clientsFor(payment.network, chainId) : undefined
      if (!net || !payment.authorization) return undefined
      try {
        return await net.publicClient.readContract({
          address: payment.requirement.network.asset as Address,
          abi: EIP3009_TOKEN_ABI,
          functionName: 'authorizationState',
          args: [payment.authorization.from, payment.authorization.nonce],
        })
      } catch {
        return undefined
      }
    },

    async settle(payment: VerifiedPayment): Promise<SettleResult> {
      const base = { network: payment.network, payer: payment.payer }
      const fail = (
        errorReason: PaymentErrorCode,
        errorMessage: string,
        extra: Partial<SettleResult> = {},
      ) => ({
        ...base,
        success: false,
        errorReason,
        errorMessage,
        retryable: false,
        ...extra,
      })
      const { authorization, signature, requirement } = payment
      const chainId = requirement.network.chainId
      if (payment.kind !== 'evm' || !authorization || !signature || typeof chainId !== 'number') {
        return fail('unsupported_network', `${payment.network} is not settled on chain`)
      }
      const net = clientsFor(payment.network, chainId)
      if (!net) return fail('unsupported_network', `no RPC configured for ${payment.network}`)
      const token = requirement.network.asset as Address
      const { v, r, s } = parseSignature(signature)
      const args = [
        authorization.from,
        authorization.to,
        authorization.value,
        authorization.validAfter,
        authorization.validBefore,
        authorization.nonce,
        Number(v ?? 0n),
        r,
        s,
      ] as const

      let hash: Hex
      // Whether the transaction may have left: a failure before it is certain nothing was sent.
      let sending = false
      try {
        // One operator account has one nonce sequence: sends go one at a time per network
        // (concurrent sends raced for nonces and were refused); receipts are awaited in parallel.
        hash = await serialised(payment.network, async () => {
          const { request } = await net.publicClient.simulateContract({
            account,
            address: token,
            abi: EIP3009_TOKEN_ABI,
            functionName: 'transferWithAuthorization',
            args,
          })
          sending = true
          for (let attempt = 1; ; attempt++) {
            try {
              return await net.walletClient.writeContract(request)
            } catch (error) {
              // The node refused the operator's nonce (a send that timed out here reached it
              // after all): nothing of this payment went out, and viem has dropped its nonce
              // cache, so the next try reads the account's pending count again.
              if (attempt >= NONCE_ATTEMPTS || !isNonceRefusal(error)) throw error
            }
          }
        })
      } catch (error) {
        if (isUnreachable(error)) {
          return fail('settlement_failed', `RPC unavailable: ${shortMessage(error)}`, {
            retryable: true,
            submitted: sending,
          })
        }
        return diagnoseRevert(net.publicClient, token, payment, error, fail)
      }

      try {
        const receipt = await net.publicClient.waitForTransactionReceipt({ hash, timeout: receiptTimeoutMs })
        if (receipt.status !== 'success') {
          return fail('settlement_failed', 'transferWithAuthorization reverted', { transaction: hash })
        }
        return { ...base, success: true, transaction: hash, amount: authorization.value.toString() }
      } catch (error) {
        return fail('settlement_timeout', `no receipt yet: ${shortMessage(error)}`, {
          transaction: hash,
          retryable: true,
        })
      }
    },
  }
}

/** Sends of one settlement when the node refuses the operator's nonce (see isNonceRefusal). */
const NONCE_ATTEMPTS = 3

/**
 * The node refused the transaction for its nonce, not for what it does: already used ("nonce too
 * low", "already known") or held by a pending transaction ("replacement transaction underpriced").
 */
function isNonceRefusal(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false
  return Boolean(
    error.walk((e) => e instanceof NonceTooLowError) ||
      /replacement transaction underpriced/i.test(error.details ?? ''),
  )
}

function shortMessage(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage
  return error instanceof Error ? error.message : String(error)
}

function isUnreachable(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false
  return Boolean(
    error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) ||
      error instanceof WaitForTransactionReceiptTimeoutError,
  )
}

async function diagnoseRevert(
  client: PublicClient,
  token: Address,
  payment: VerifiedPayment,
  error: unknown,
  fail: (code: PaymentErrorCode, message: string) => SettleResult,
): Promise<SettleResult> {
  const authorization = payment.authorization!
  const revert =
    error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null
  const reason =
    revert instanceof ContractFunctionRevertedError
      ? (revert.reason ?? revert.shortMessage)
      : shortMessage(error)
  try {
    const used = await client.readContract({
      address: token,
      abi: EIP3009_TOKEN_ABI,
      functionName: 'authorizationState',
      args: [authorization.from, authorization.nonce],
    })
    if (used) return fail('nonce_replay', `authorization nonce already used on chain (${reason})`)
    const balance = await client.readContract({
      address: token,
      abi: EIP3009_TOKEN_ABI,
      functionName: 'balanceOf',
      args: [authorization.from],
    })
    if (balance < authorization.value)
      return fail('insufficient_funds', `payer balance ${balance} is too low`)
  } catch {
    // diagnosis is best effort; the revert reason below still explains the failure
  }
  return fail('settlement_failed', reason)
}
