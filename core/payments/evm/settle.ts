import {
  type Address,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  ExecutionRevertedError,
  encodeFunctionData,
  type Hex,
  HttpRequestError,
  http,
  keccak256,
  type PublicClient,
  parseEventLogs,
  parseSignature,
  TimeoutError,
  WaitForTransactionReceiptTimeoutError,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { PaymentErrorCode } from '../error-codes.ts'
import type { SettleResult, Settler } from '../settle-result.ts'
import type { VerifiedPayment } from '../verify-result.ts'
import { EIP3009_EVENTS_ABI, EIP3009_TOKEN_ABI } from './eip3009.ts'

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
  /**
   * Whether THIS payment landed: `paid` when the authorization's AuthorizationUsed event sits in a
   * transaction that also transferred its amount from the payer to our payTo; `used_elsewhere`
   * when the nonce is used but not by that transfer (the payer's cancelAuthorization, or a
   * transfer to someone else); `unused`; undefined when the chain cannot tell (no RPC, or the
   * event is older than the blocks searched). A used nonce alone never means we were paid.
   */
  paymentLanded(payment: VerifiedPayment): Promise<PaymentLanded>
}

/** What the chain says became of a payment's authorization (OnChainSettler.paymentLanded). */
export type PaymentLanded = 'paid' | 'used_elsewhere' | 'unused' | undefined

/**
 * How far back the events of a used authorization are searched, in blocks (about 28 hours on
 * Base at 2 s a block): an interrupted settlement is looked at within minutes, and x402
 * authorizations live for minutes. Older: undefined (unknown, asked again), never a guess.
 */
export const LANDED_LOOKBACK_BLOCKS = 50_000n

interface NetworkClients {
  chain: Chain
  /** The node's JSON-RPC URL. */
  url: string
  /** Reads (simulation, fees, gas, nonce, receipts): asked again after a failure or timeout. */
  publicClient: PublicClient
  /** Prepares the operator's transactions, reading like `publicClient`. */
  walletClient: ReturnType<typeof createWalletClient>
  /**
   * Sends signed transactions, once: a send that gets no answer may have reached the node, so it
   * is followed up by its hash (never sent again blind by the transport).
   */
  sender: ReturnType<typeof createWalletClient>
}

/**
 * Further tries of a read that failed or timed out. A busy process (a burst of paid calls)
 * can see an answer late even from a healthy node; giving up on the first try would refuse a
 * paid call the operation already answered.
 */
const READ_RETRIES = 3

/**
 * Settles EVM payments directly on chain (DESIGN: Payments, settlement with the operator's key):
 * simulates then sends USDC `transferWithAuthorization(from, to, value, validAfter, validBefore,
 * nonce, v, r, s)` and waits for the receipt. A revert is diagnosed into `nonce_replay` (already
 * used on chain), `insufficient_funds` or `settlement_failed`; an unreachable RPC or a receipt that
 * does not come in time is reported retryable, never thrown. A failure on the operator's side
 * (the RPC, the operator's nonce or gas) is retryable and says whether anything was sent: it is
 * the service's problem, never reported as a refusal of the payer's payment.
 */
export function createOnChainSettler(options: OnChainSettlerOptions): OnChainSettler {
  const account = privateKeyToAccount(options.privateKey)
  const receiptTimeoutMs = options.receiptTimeoutMs ?? 60_000
  const rpcTimeoutMs = options.rpcTimeoutMs ?? 10_000
  const clients = new Map<string, NetworkClients>()
  /**
   * Signs and sends one transaction from the operator's account, in turn with every other send of
   * that account on that chain in this process, with the nonce the sequence holds (see
   * operatorSequence). A nonce the node refuses as used or held is never this payment's fault:
   * the sequence moves past it and the same transaction is signed again, up to SEND_ATTEMPTS.
   */
  const sendInTurn = (net: NetworkClients, chainId: number, to: Address, data: Hex): Promise<SendOutcome> => {
    const sequence = operatorSequence(account.address, chainId, net.url)
    return sequence.inTurn(async () => {
      let prepared: Awaited<ReturnType<typeof net.walletClient.prepareTransactionRequest>>
      try {
        // Fees, gas and type, fresh for this send; the nonce is the sequence's, not the node's.
        prepared = await net.walletClient.prepareTransactionRequest({
          account,
          chain: net.chain,
          to,
          data,
          parameters: ['chainId', 'fees', 'gas', 'type'],
        })
      } catch (error) {
        if (isUnreachable(error))
          return { kind: 'not_sent', message: `RPC unavailable: ${shortMessage(error)}` }
        if (isRevert(error)) return { kind: 'reverted', error }
        return { kind: 'not_sent', message: `the transaction could not be prepared: ${shortMessage(error)}` }
      }
      let refusal = ''
      for (let attempt = 1; attempt <= SEND_ATTEMPTS; attempt++) {
        let nonce: number
        try {
          nonce = await sequence.next(net.publicClient)
        } catch (error) {
          return { kind: 'not_sent', message: `RPC unavailable: ${shortMessage(error)}` }
        }
        const { nonceManager: _, ...request } = { ...prepared, nonce }
        const serializedTransaction = await account.signTransaction(
          request as Parameters<typeof account.signTransaction>[0],
        )
        const hash = keccak256(serializedTransaction)
        try {
          await net.sender.sendRawTransaction({ serializedTransaction })
          sequence.spent(nonce)
          return { kind: 'sent', hash }
        } catch (error) {
          const text = errorText(error)
          if (ALREADY_KNOWN.test(text)) {
            // This very transaction is already in the node (a send that timed out reached it).
            sequence.spent(nonce)
            return { kind: 'sent', hash }
          }
          if (NONCE_USED.test(text)) {
            // Used by a mined transaction, or held by a pending one: refused, nothing sent.
            refusal = shortMessage(error)
            sequence.used(nonce)
            continue
          }
          if (NONCE_GAP.test(text)) {
            refusal = shortMessage(error)
            sequence.forget()
            continue
          }
          if (isUnreachable(error)) {
            // It may have reached the node: the next send asks the node where the account is.
            sequence.forget()
            return {
              kind: 'uncertain',
              hash,
              message: `no answer to the transaction: ${shortMessage(error)}`,
            }
          }
          if (isRevert(error)) return { kind: 'reverted', error }
          return {
            kind: 'not_sent',
            message: `the node refused the operator's transaction: ${shortMessage(error)}`,
          }
        }
      }
      return {
        kind: 'not_sent',
        message: `the node refused the operator's nonce ${SEND_ATTEMPTS} times (${refusal})`,
      }
    })
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
      const reads = http(url, { timeout: rpcTimeoutMs, retryCount: READ_RETRIES })
      const sends = http(url, { timeout: rpcTimeoutMs, retryCount: 0 })
      entry = {
        chain,
        url,
        publicClient: createPublicClient({ chain, transport: reads }) as PublicClient,
        walletClient: createWalletClient({ account, chain, transport: reads }),
        sender: createWalletClient({ account, chain, transport: sends }),
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

    async paymentLanded(payment) {
      const chainId = payment.requirement.network.chainId
      const net = typeof chainId === 'number' ? clientsFor(payment.network, chainId) : undefined
      const authorization = payment.authorization
      if (!net || !authorization) return undefined
      const token = payment.requirement.network.asset as Address
      const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
      try {
        const used = await net.publicClient.readContract({
          address: token,
          abi: EIP3009_TOKEN_ABI,
          functionName: 'authorizationState',
          args: [authorization.from, authorization.nonce],
        })
        if (!used) return 'unused'
        // Uncached: a block number read seconds ago would hide the newest blocks.
        const latest = await net.publicClient.getBlockNumber({ cacheTime: 0 })
        const range = {
          address: token,
          args: { authorizer: authorization.from, nonce: authorization.nonce },
          fromBlock: latest > LANDED_LOOKBACK_BLOCKS ? latest - LANDED_LOOKBACK_BLOCKS : 0n,
          toBlock: 'latest' as const,
        }
        const uses = await net.publicClient.getLogs({ ...range, event: EIP3009_EVENTS_ABI[0] })
        for (const use of uses) {
          const receipt = await net.publicClient.getTransactionReceipt({ hash: use.transactionHash! })
          const transfers = parseEventLogs({
            abi: EIP3009_EVENTS_ABI,
            eventName: 'Transfer',
            logs: receipt.logs.filter((log) => same(log.address, token)),
          })
          const ours = transfers.some(
            (transfer) =>
              same(transfer.args.from, authorization.from) &&
              same(transfer.args.to, payment.requirement.network.payTo) &&
              transfer.args.value === payment.amount,
          )
          if (ours) return 'paid'
        }
        if (uses.length > 0) return 'used_elsewhere'
        const cancels = await net.publicClient.getLogs({ ...range, event: EIP3009_EVENTS_ABI[1] })
        return cancels.length > 0 ? 'used_elsewhere' : undefined
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

      // Simulated first (in parallel with other settlements): a payment the token would refuse
      // is diagnosed without spending a nonce or gas.
      try {
        await net.publicClient.simulateContract({
          account,
          address: token,
          abi: EIP3009_TOKEN_ABI,
          functionName: 'transferWithAuthorization',
          args,
        })
      } catch (error) {
        if (isUnreachable(error)) {
          return fail('settlement_failed', `RPC unavailable: ${shortMessage(error)}`, {
            retryable: true,
            submitted: false,
          })
        }
        return diagnoseRevert(net.publicClient, token, payment, error, fail)
      }

      const data = encodeFunctionData({
        abi: EIP3009_TOKEN_ABI,
        functionName: 'transferWithAuthorization',
        args,
      })
      const sent = await sendInTurn(net, chainId, token, data)
      if (sent.kind === 'reverted') return diagnoseRevert(net.publicClient, token, payment, sent.error, fail)
      if (sent.kind === 'not_sent') {
        // The operator's side failed (RPC down, the node refused the operator's transaction):
        // nothing of this payment went out, and the payer's authorization is still good.
        return fail('settlement_failed', sent.message, { retryable: true, submitted: false })
      }
      if (sent.kind === 'uncertain') {
        // The transaction may have reached the node: followed up by its hash, never sent blind.
        return fail('settlement_timeout', sent.message, { transaction: sent.hash, retryable: true })
      }
      const hash = sent.hash

      try {
        const receipt = await net.publicClient.waitForTransactionReceipt({ hash, timeout: receiptTimeoutMs })
        if (receipt.status !== 'success') {
          // Diagnosed like a revert before sending: an authorization already used (an earlier send
          // of this payment that got no answer here was mined first) is nonce_replay, which the
          // retry pass records as SETTLED, never FAILED for money that moved.
          const revert = new Error('transferWithAuthorization reverted')
          return {
            ...(await diagnoseRevert(net.publicClient, token, payment, revert, fail)),
            transaction: hash,
          }
        }
        return { ...base, success: true, transaction: hash, amount: authorization.value.toString() }
      } catch (error) {
        // A transaction the node holds but does not mine may sit behind a nonce that never
        // reached it: the next send asks the node where the account is.
        operatorSequence(account.address, chainId, net.url).forget()
        return fail('settlement_timeout', `no receipt yet: ${shortMessage(error)}`, {
          transaction: hash,
          retryable: true,
        })
      }
    },
  }
}

/** What became of one operator transaction (sendInTurn). */
type SendOutcome =
  | { kind: 'sent'; hash: Hex }
  /** Certainly not in the node: refused before or when sent, for the operator's reasons. */
  | { kind: 'not_sent'; message: string }
  /** Sent, but no answer came: it may be in the node. */
  | { kind: 'uncertain'; hash: Hex; message: string }
  /** The node ran it and the token refused it (diagnosed against the payment). */
  | { kind: 'reverted'; error: unknown }

/** Signatures of one settlement when the node refuses the operator's nonce (a new nonce each). */
const SEND_ATTEMPTS = 5

/** The node already holds this exact transaction (same hash): it was sent. */
const ALREADY_KNOWN = /already known|already imported|known transaction|transaction already exists/i
/**
 * The nonce is used by a mined transaction or held by a pending one (wording of geth, anvil,
 * reth, nethermind and erigon nodes).
 */
const NONCE_USED =
  /nonce too low|lower than the current nonce|replacement transaction underpriced|nonce has already been used|nonce already used/i
/** The nonce is ahead of the account's: something in between never reached the node. */
const NONCE_GAP = /nonce too high|higher than the next one expected|nonce gap/i

/**
 * The nonce sequence of one operator account on one chain through one node, one per process (every
 * settler of the account shares it): sends go one at a time, each with the next nonce, counted
 * here rather than read from the node's pending count before each send (a node under load answers
 * a pending count that lags its pool, and concurrent reads hand one nonce to two transactions).
 * The node is asked at first, after a send whose fate is unknown, and after it refused a nonce as
 * used (then never below that nonce + 1: a lagging answer cannot hand out a refused nonce again).
 */
interface OperatorSequence {
  /** Runs `task` once every earlier send of this account on this chain is done. */
  inTurn<T>(task: () => Promise<T>): Promise<T>
  /** The nonce for the next send. */
  next(client: PublicClient): Promise<number>
  /** The node took the transaction with this nonce. */
  spent(nonce: number): void
  /** The node refused this nonce as used or held: ask it again, and never offer this one again. */
  used(nonce: number): void
  /** Ask the node again before the next send. */
  forget(): void
}

const operatorSequences = new Map<string, OperatorSequence>()

function operatorSequence(address: Address, chainId: number, url: string): OperatorSequence {
  const key = `${address.toLowerCase()}:${chainId}:${url}`
  const existing = operatorSequences.get(key)
  if (existing) return existing
  let queue: Promise<unknown> = Promise.resolve()
  // The lowest nonce not known to be used; undefined until the node is asked.
  let next: number | undefined
  // Above every nonce the node refused as used or held (a floor for its answers).
  let floor = 0
  const sequence: OperatorSequence = {
    inTurn(task) {
      const run = queue.then(task, task)
      queue = run.catch(() => {})
      return run
    },
    async next(client) {
      if (next === undefined) {
        const pending = await client.getTransactionCount({ address, blockTag: 'pending' })
        next = Math.max(pending, floor)
      }
      return next
    },
    spent(nonce) {
      next = nonce + 1
    },
    used(nonce) {
      // The account may be far ahead (another process, a restart): the node says how far.
      next = undefined
      floor = Math.max(floor, nonce + 1)
    },
    forget() {
      next = undefined
    },
  }
  operatorSequences.set(key, sequence)
  return sequence
}

/** Every message in a viem error's chain (the node's own wording sits in `details`). */
function errorText(error: unknown): string {
  if (!(error instanceof BaseError)) return error instanceof Error ? error.message : String(error)
  const parts: string[] = []
  error.walk((e) => {
    if (e instanceof BaseError) parts.push(e.shortMessage, e.details)
    else if (e instanceof Error) parts.push(e.message)
    return false
  })
  return parts.join(' | ')
}

function isRevert(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    Boolean(
      error.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ExecutionRevertedError),
    )
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
