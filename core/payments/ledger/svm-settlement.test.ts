import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../../test/support/database.ts'
import { createManualClock } from '../../../test/support/fakes/index.ts'
import { type SolanaTestChain, startSolanaTestChain } from '../../../test/support/solana/litesvm-chain.ts'
import {
  chainPaymentConfig,
  chainPaymentTransaction,
  svmPaymentHeader,
} from '../../../test/support/solana/svm-payment.ts'
import type { Database } from '../../store/database.ts'
import type { PaymentConfig } from '../networks.ts'
import { PRICES } from '../pricing.ts'
import { paymentRequirementsFor } from '../requirements.ts'
import { createSolanaFeePayer } from '../svm/fee-payer.ts'
import type { SolanaRpc } from '../svm/rpc.ts'
import { SolanaRpcError } from '../svm/rpc.ts'
import { ownFeePayerSvmScheme } from '../svm/scheme.ts'
import { createSvmSettler, type SvmSettler } from '../svm/settle.ts'
import { createPaymentVerifier } from '../verify-payment.ts'
import { toStandardRequirement, type VerifiedPayment } from '../verify-result.ts'
import { createMemoryNonceStore } from './nonce-store.ts'
import { createSettlementService } from './settle-and-retry.ts'
import { createSettlementLedger } from './settlement-ledger.ts'

const PRICE = PRICES.sanctions_screen.x402.fresh

/** Solana settlements follow the same ledger rules (PENDING/SETTLED/FAILED, retry, sweep). */
describe.each(DATABASE_KINDS)('Solana settlements in the ledger on %s', (kind) => {
  let database: Database
  let chain: SolanaTestChain
  let config: PaymentConfig
  let settler: SvmSettler
  let rpcDown = false
  const clock = createManualClock(new Date())
  const isAlive = async (instanceId: string) => !instanceId.startsWith('dead-')

  beforeAll(async () => {
    database = await openTestDatabase(kind)
    chain = await startSolanaTestChain({ payerCount: 1 })
    config = chainPaymentConfig(chain)
    // The litesvm port, which the test can take down.
    const rpc: SolanaRpc = {
      isBlockhashValid: (blockhash) => chain.rpc.isBlockhashValid(blockhash),
      simulateTransaction: (wire) => chain.rpc.simulateTransaction(wire),
      sendTransaction: async (wire) => {
        if (rpcDown) throw new SolanaRpcError('unavailable', 'down')
        return chain.rpc.sendTransaction(wire)
      },
      signatureStatus: async (signature) => {
        if (rpcDown) throw new SolanaRpcError('unavailable', 'down')
        return chain.rpc.signatureStatus(signature)
      },
    }
    settler = createSvmSettler({
      feePayer: await createSolanaFeePayer(chain.feePayer.secretKey),
      rpc,
      confirmTimeoutMs: 200,
      pollIntervalMs: 20,
    })
  }, 60_000)

  afterAll(async () => {
    await database?.close()
  })

  async function verified(): Promise<VerifiedPayment> {
    const requirements = paymentRequirementsFor(config, {
      operationId: 'sanctions_screen',
      quality: 'fresh',
      resourceUrl: 'http://localhost/v1/sanctions/screen',
    })
    const nonceStore = createMemoryNonceStore({ clock })
    const verifier = createPaymentVerifier({
      clock,
      schemes: {
        solana: ownFeePayerSvmScheme({
          config,
          nonceStore,
          feePayer: chain.feePayer.address,
          rpc: chain.rpc,
        }),
      },
    })
    const transaction = await chainPaymentTransaction(chain, chain.payers[0]!.signer, PRICE)
    const header = svmPaymentHeader(toStandardRequirement(requirements[0]!) as never, transaction)
    const result = await verifier.verify({ header }, requirements)
    if (!result.isValid) throw new Error(result.invalidReason)
    return result
  }

  const setup = (instanceId = randomUUID()) => {
    const ledger = createSettlementLedger({ db: database.db, clock, config, instanceId })
    const service = createSettlementService({
      ledger,
      settler,
      clock,
      retryBaseMs: 1000,
      authorizationUsed: (payment) => settler.transactionLanded(payment),
    })
    return { ledger, service }
  }

  it('an RPC outage defers the settlement (PENDING); the retry pass settles it from the stored row', async () => {
    const { ledger, service } = setup()
    const payment = await verified()
    const id = await ledger.reserve(payment, 'sanctions_screen', null)
    rpcDown = true
    expect((await service.settleReserved(id, payment)).kind).toBe('deferred')
    expect(await ledger.get(id)).toMatchObject({ status: 'PENDING', phase: 'retrying' })
    rpcDown = false
    const before = await chain.balanceOf(chain.payTo.address)
    clock.advance(1500)
    expect(await service.retryDue()).toBe(1)
    expect(await ledger.get(id)).toMatchObject({ status: 'SETTLED' })
    expect((await chain.balanceOf(chain.payTo.address)) - before).toBe(PRICE)
  })

  it('a process that died after sending: the sweep sees the transaction on the cluster and marks it SETTLED', async () => {
    const dead = setup(`dead-${randomUUID()}`)
    const payment = await verified()
    const id = await dead.ledger.reserve(payment, 'sanctions_screen', null)
    await dead.ledger.beginAttempt(id, ['reserved'])
    expect((await settler.settle(payment)).success).toBe(true) // sent, then the process died
    const live = setup()
    await live.service.sweep(isAlive)
    expect(await live.ledger.get(id)).toMatchObject({ status: 'SETTLED' })
  })

  it('a process that died before sending: FAILED once the blockhash window has passed, never sent by the sweep', async () => {
    const dead = setup(`dead-${randomUUID()}`)
    const payment = await verified()
    const id = await dead.ledger.reserve(payment, 'sanctions_screen', null)
    await dead.ledger.beginAttempt(id, ['reserved'])
    const live = setup()
    const sent = chain.sent.length
    await live.service.sweep(isAlive)
    expect(await live.ledger.get(id)).toMatchObject({ status: 'PENDING' })
    clock.advance(90_000 + 120_000 + 1000)
    await live.service.sweep(isAlive)
    expect(await live.ledger.get(id)).toMatchObject({ status: 'FAILED' })
    expect(chain.sent.length).toBe(sent)
  })
})
