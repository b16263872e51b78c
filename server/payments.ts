import type { Hex } from 'viem'
import type { Clock } from '../core/context.ts'
import type { DeliveryJournal } from '../core/keys/delivery-journal.ts'
import { createKeyReservations, type KeyReservations } from '../core/keys/reservations.ts'
import type { PaymentGate } from '../core/payments/charge.ts'
import { createOnChainFundsCheck } from '../core/payments/evm/funds-check.ts'
import { evmSettler, exactEvmScheme } from '../core/payments/evm/scheme.ts'
import { createTreasuryReader } from '../core/payments/evm/treasury.ts'
import {
  BASE_MAINNET,
  BASE_SEPOLIA,
  createFacilitatorClient,
  createOnChainSettler,
  createPaymentConfig,
  createPaymentVerifier,
  type FacilitatorClient,
  type OnChainSettler,
  type PaymentConfig,
  type PaymentNetwork,
} from '../core/payments/index.ts'
import type { NonceStore } from '../core/payments/ledger/nonce-store.ts'
import { createDbNonceStore } from '../core/payments/ledger/nonce-table.ts'
import { createSettlementService } from '../core/payments/ledger/settle-and-retry.ts'
import { createSettlementLedger } from '../core/payments/ledger/settlement-ledger.ts'
import { networkKindOf, networksOfKind } from '../core/payments/networks.ts'
import { createPaymentGate, type X402Payments } from '../core/payments/payment-gate.ts'
import {
  type PaymentScheme,
  type PaymentSchemes,
  schemeAuthorizationUsed,
  schemeFundsCheck,
  schemeSettler,
} from '../core/payments/payment-schemes.ts'
import {
  createSolanaFeePayer,
  readSolanaSecretKey,
  type SolanaFeePayer,
  solanaAddressOfSecretKey,
} from '../core/payments/svm/fee-payer.ts'
import { createSvmFundsCheck } from '../core/payments/svm/funds-check.ts'
import { createSolanaJsonRpc } from '../core/payments/svm/rpc.ts'
import { facilitatedSvmScheme, ownFeePayerSvmScheme } from '../core/payments/svm/scheme.ts'
import { createSvmSettler, type SvmSettler } from '../core/payments/svm/settle.ts'
import { type CircuitBreaker, createCircuitBreaker } from '../core/sources/circuit-breaker.ts'
import type { Database } from '../core/store/database.ts'
import type { Config } from './config.ts'

export interface Payments {
  gate: PaymentGate
  /** Key debits as durable reservations (released by the sweep when a process dies). */
  reservations: KeyReservations
  x402?: X402Payments
  settlementConfigured: boolean
  solanaSettlementConfigured: boolean
  treasuryBalance?: () => Promise<bigint | undefined>
  /** The facilitator client's circuit breaker (GET /v1/providers status), when a facilitator is set. */
  facilitatorBreaker?: CircuitBreaker
  /** Liveness, the start-up sweep (reservations and settlements), then the worker. */
  start(): Promise<void>
  stop(): void
}

type Log = (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void

/**
 * How long the answer an x402 payment bought is kept for a retry with the same payment: a day,
 * far beyond the 5-minute nonce window and a Solana blockhash's life, after which such a retry is
 * refused anyway.
 */
const KEPT_ANSWER_MS = 24 * 60 * 60_000

/**
 * Builds the money side from config: key reservations, and x402 payments: one mechanism per
 * network kind (EVM verified here and settled by the facilitator, the operator's key, or the
 * facilitator with on-chain fallback; Solana verified and settled by the facilitator or by the
 * service's own fee payer), the database nonce store and the settlement ledger. Without a payTo,
 * only keys pay. One worker (every SETTLEMENT_RETRY_INTERVAL_MS) re-asserts this process's liveness,
 * releases the reservations of dead processes and of releases that failed here, retries
 * deferred settlements and clears the x402 answers kept for retries once they are a day old.
 */
export function buildPayments(
  config: Config,
  database: Database,
  instanceId: string,
  clock: Clock,
  log: Log,
  journal?: DeliveryJournal,
): Payments {
  const reservations = createKeyReservations({
    db: database.db,
    instanceId,
    onError: (error) => log('warn', 'key refund deferred to the sweep', String(error)),
    ...(journal ? { journal } : {}),
  })
  const x402 = buildX402(config, database, instanceId, clock, log)
  const isAlive = (id: string) => database.isAlive(id)
  const sweepReservations = async () => {
    const released = await reservations.sweep(isAlive)
    if (released > 0) log('warn', 'released key charges of calls that gave no answer', { released })
  }

  let timer: NodeJS.Timeout | undefined
  let running = false
  const tick = async () => {
    if (running) return
    running = true
    // Each step on its own: one that fails (database down) does not skip the others.
    const step = async (name: string, run: () => Promise<unknown>) => {
      try {
        await run()
      } catch (error) {
        log('warn', `payment worker: ${name} failed`, String(error))
      }
    }
    try {
      // After a PostgreSQL restart the session lock is gone: take it again before sweeping.
      await step('liveness', () => database.holdLiveness(instanceId))
      await step('key reservation sweep', sweepReservations)
      await step('settlement pass', async () => x402?.tick())
      await step('kept x402 answers', async () => x402?.payments.ledger.forgetAnswers(KEPT_ANSWER_MS))
    } finally {
      running = false
    }
  }

  return {
    gate: createPaymentGate({ reservations, clock, x402: x402?.payments }),
    reservations,
    x402: x402?.payments,
    settlementConfigured: x402 !== undefined,
    solanaSettlementConfigured: x402?.solanaSettlementConfigured ?? false,
    treasuryBalance: x402?.treasuryBalance,
    facilitatorBreaker: x402?.facilitatorBreaker,
    async start() {
      await database.holdLiveness(instanceId)
      await sweepReservations()
      await x402?.start()
      timer = setInterval(() => void tick(), config.SETTLEMENT_RETRY_INTERVAL_MS)
      timer.unref()
    },
    stop() {
      if (timer) clearInterval(timer)
    },
  }
}

/** The variable that holds each known network's JSON-RPC URL (named in start-up messages). */
const RPC_VARIABLE: Readonly<Record<string, string>> = {
  [BASE_MAINNET]: 'BASE_RPC_URL',
  [BASE_SEPOLIA]: 'BASE_SEPOLIA_RPC_URL',
}

/** Where clients reach this service: PUBLIC_BASE_URL, else this machine's port. */
export function publicBaseUrlOf(config: Config): string {
  return config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`
}

/**
 * x402 SVM clients build the transaction with the facilitator as fee payer, so a Solana
 * requirement needs `extra.feePayer`: from X402_SOLANA_FEE_PAYER (or the overrides), else from the
 * facilitator's `GET /supported`. A Solana network still without one is named in a warning.
 */
async function fillSolanaFeePayers(
  paymentConfig: PaymentConfig,
  facilitator: FacilitatorClient | undefined,
  log: Log,
): Promise<void> {
  const missing = networksOfKind(paymentConfig, 'solana').filter((network) => !network.feePayer)
  if (missing.length === 0) return
  const kinds = (await facilitator?.supported?.()) ?? []
  for (const network of missing) {
    const kind = kinds.find(
      (candidate) =>
        candidate.scheme === 'exact' &&
        (candidate.network === network.network || candidate.network === network.v1Network) &&
        typeof candidate.extra?.feePayer === 'string',
    )
    if (kind) network.feePayer = kind.extra?.feePayer as string
    else
      log(
        'warn',
        `x402 on ${network.network} has no fee payer for SVM clients: set X402_SOLANA_FEE_PAYER (the facilitator's /supported did not name one)`,
      )
  }
}

/** The service's own Solana fee payer, its RPC and settler (SOLANA_FEE_PAYER_KEY + SOLANA_RPC_URL). */
interface OwnSolana {
  feePayer: SolanaFeePayer
  rpc: ReturnType<typeof createSolanaJsonRpc>
  settler: SvmSettler
  /** Resolves once the key is loaded; rejects (stopping start-up) when its halves do not match. */
  ready(): Promise<void>
}

/**
 * With SOLANA_FEE_PAYER_KEY and SOLANA_RPC_URL the service verifies Solana payments
 * itself and co-signs them as fee payer. The key without the RPC stops start-up (it could never
 * settle); the key without an enabled Solana network is only warned about.
 */
function buildOwnSolana(config: Config, solanaEnabled: boolean, log: Log): OwnSolana | undefined {
  if (!config.SOLANA_FEE_PAYER_KEY) return undefined
  if (!solanaEnabled) {
    log(
      'warn',
      'SOLANA_FEE_PAYER_KEY is set but no Solana network is enabled (X402_SOLANA_PAY_TO, X402_NETWORKS)',
    )
    return undefined
  }
  if (!config.SOLANA_RPC_URL) {
    throw new Error(
      'SOLANA_FEE_PAYER_KEY needs SOLANA_RPC_URL: the service settles Solana payments through it',
    )
  }
  const secretKey = readSolanaSecretKey(config.SOLANA_FEE_PAYER_KEY)
  const loading = createSolanaFeePayer(secretKey)
  loading.catch(() => {}) // reported by ready() at start-up
  const feePayer: SolanaFeePayer = {
    address: solanaAddressOfSecretKey(secretKey),
    sign: async (message) => (await loading).sign(message),
  }
  const rpc = createSolanaJsonRpc({ url: config.SOLANA_RPC_URL })
  return {
    feePayer,
    rpc,
    settler: createSvmSettler({ feePayer, rpc }),
    async ready() {
      try {
        await loading
      } catch (error) {
        throw new Error(`SOLANA_FEE_PAYER_KEY: not a valid Solana key pair (${(error as Error).message})`)
      }
    },
  }
}

/**
 * The Solana mechanism: the service's own fee payer when it has one (a facilitator still settles
 * payments that name another fee payer), else the facilitator; none without either.
 */
function solanaScheme(parts: {
  paymentConfig: PaymentConfig
  nonceStore: NonceStore
  facilitator: FacilitatorClient | undefined
  ownSolana: OwnSolana | undefined
  fundsCheck: boolean
}): PaymentScheme | undefined {
  const { paymentConfig: config, nonceStore, facilitator, ownSolana } = parts
  if (ownSolana) {
    const { settler, rpc } = ownSolana
    return ownFeePayerSvmScheme({
      config,
      nonceStore,
      feePayer: ownSolana.feePayer.address,
      rpc,
      settler,
      facilitator,
      fundsCheck: parts.fundsCheck
        ? createSvmFundsCheck({ rpc, handles: (payment) => settler.handles(payment) })
        : undefined,
    })
  }
  return facilitator ? facilitatedSvmScheme({ config, nonceStore, facilitator }) : undefined
}

interface X402Setup {
  payments: X402Payments
  solanaSettlementConfigured: boolean
  treasuryBalance: Payments['treasuryBalance']
  facilitatorBreaker?: CircuitBreaker
  start(): Promise<void>
  tick(): Promise<void>
}

function buildX402(
  config: Config,
  database: Database,
  instanceId: string,
  clock: Clock,
  log: Log,
): X402Setup | undefined {
  const networks = config.X402_NETWORKS.split(',')
    .map((network) => network.trim())
    .filter(Boolean)
  const enabled = Boolean(config.X402_PAY_TO || config.X402_SOLANA_PAY_TO)
  if (!enabled) return undefined
  const overrides: Record<string, Partial<Omit<PaymentNetwork, 'network'>>> = config.X402_NETWORK_OVERRIDES
    ? JSON.parse(config.X402_NETWORK_OVERRIDES)
    : {}
  const solanaIds = networks.filter((network) => networkKindOf(network) === 'solana')
  const ownSolana = buildOwnSolana(config, solanaIds.length > 0 && Boolean(config.X402_SOLANA_PAY_TO), log)
  if (ownSolana) {
    // The service signs as fee payer itself: its key is the challenge's extra.feePayer.
    for (const id of solanaIds) overrides[id] = { ...overrides[id], feePayer: ownSolana.feePayer.address }
  } else if (config.X402_SOLANA_FEE_PAYER) {
    for (const id of solanaIds) {
      overrides[id] = { feePayer: config.X402_SOLANA_FEE_PAYER, ...overrides[id] }
    }
  }
  const payTo = { evm: config.X402_PAY_TO, solana: config.X402_SOLANA_PAY_TO }
  const paymentConfig = createPaymentConfig({
    networks: networks.filter((id) => payTo[networkKindOf(id)]),
    evmPayTo: config.X402_PAY_TO,
    solanaPayTo: config.X402_SOLANA_PAY_TO,
    overrides,
    publicBaseUrl: publicBaseUrlOf(config),
  })
  const rpcUrls: Record<string, string> = {}
  if (config.BASE_RPC_URL) rpcUrls[BASE_MAINNET] = config.BASE_RPC_URL
  if (config.BASE_SEPOLIA_RPC_URL) rpcUrls[BASE_SEPOLIA] = config.BASE_SEPOLIA_RPC_URL
  // Enabled EVM networks without an RPC (a local chain brings its own through the overrides).
  const missingRpc = networksOfKind(paymentConfig, 'evm')
    .filter((network) => !rpcUrls[network.network] && RPC_VARIABLE[network.network])
    .map((network) => RPC_VARIABLE[network.network]!)
  const facilitatorBreaker = createCircuitBreaker({ clock, failureThreshold: 3, coolDownMs: 30_000 })
  const facilitator = config.X402_FACILITATOR_URL
    ? createFacilitatorClient({ url: config.X402_FACILITATOR_URL, breaker: facilitatorBreaker })
    : undefined
  const onChain: OnChainSettler | undefined =
    config.SETTLEMENT_PRIVATE_KEY && Object.keys(rpcUrls).length > 0
      ? createOnChainSettler({ privateKey: config.SETTLEMENT_PRIVATE_KEY as Hex, rpcUrls })
      : undefined
  if (config.SETTLEMENT_PRIVATE_KEY && missingRpc.length > 0) {
    log('warn', `on-chain settlement has no RPC for every enabled network: set ${missingRpc.join(', ')}`)
  }
  const evmEnabled = networksOfKind(paymentConfig, 'evm').length > 0
  // x402 is on but nothing can settle the EVM networks (or any network): stop at start-up
  // instead of serving calls the service can never be paid for.
  if (!evmSettler({ facilitator, onChain }) && (!ownSolana || evmEnabled)) {
    const rpc = missingRpc.length ? missingRpc.join(' and ') : 'the RPC URL of each network'
    throw new Error(
      `x402 is on (X402_PAY_TO) but nothing can settle: set X402_FACILITATOR_URL, or SETTLEMENT_PRIVATE_KEY with ${rpc}`,
    )
  }
  const fundsCheck = config.X402_FUNDS_CHECK === 'on'
  const nonceStore = createDbNonceStore(database.db, clock)
  const solana = solanaScheme({ paymentConfig, nonceStore, facilitator, ownSolana, fundsCheck })
  const schemes: PaymentSchemes = {
    evm: exactEvmScheme({
      config: paymentConfig,
      nonceStore,
      facilitator,
      onChain,
      fundsCheck: fundsCheck ? createOnChainFundsCheck(rpcUrls) : undefined,
    }),
    ...(solana ? { solana } : {}),
  }
  const ledger = createSettlementLedger({ db: database.db, clock, config: paymentConfig, instanceId })
  const settlement = createSettlementService({
    ledger,
    settler: schemeSettler(schemes),
    clock,
    authorizationUsed: schemeAuthorizationUsed(schemes),
    unconfirmed: config.X402_UNCONFIRMED_SETTLEMENT,
    log: (message, extra) => log('info', message, extra),
  })
  const x402: X402Payments = {
    config: paymentConfig,
    verifier: createPaymentVerifier({ clock, schemes }),
    ledger,
    settlement,
    fundsCheck: schemeFundsCheck(schemes),
  }

  const treasuryBalance = createTreasuryReader(paymentConfig, rpcUrls)

  return {
    payments: x402,
    solanaSettlementConfigured: Boolean(
      schemes.solana?.settle && networksOfKind(paymentConfig, 'solana').length,
    ),
    treasuryBalance,
    facilitatorBreaker: facilitator ? facilitatorBreaker : undefined,
    async start() {
      await ownSolana?.ready()
      await fillSolanaFeePayers(paymentConfig, facilitator, log)
      await ledger.register()
      const swept = await settlement.sweep((id) => database.isAlive(id))
      if (swept > 0) log('warn', 'start-up sweep resolved interrupted settlements', { swept })
    },
    async tick() {
      await settlement.sweep((id) => database.isAlive(id))
      await settlement.retryDue()
      await nonceStore.sweep()
    },
  }
}
