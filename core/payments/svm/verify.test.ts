import { createNoopSigner } from '@solana/kit'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeHttpServer } from '../../../test/support/fakes/fake-http-server.ts'
import { startFakeSolanaRpcServer } from '../../../test/support/fakes/fake-solana-rpc-server.ts'
import {
  generateTestSolanaKey,
  type SolanaTestChain,
  startSolanaTestChain,
} from '../../../test/support/solana/litesvm-chain.ts'
import { officialSvmClient } from '../../../test/support/solana/official-svm-payer.ts'
import {
  chainPaymentConfig,
  chainPaymentTransaction,
  type SvmPaymentParts,
  svmPaymentHeader,
  systemTransferInstruction,
  tamperAmount,
} from '../../../test/support/solana/svm-payment.ts'
import { systemClock } from '../../context.ts'
import { buildPaymentChallenge } from '../challenge.ts'
import { createMemoryNonceStore } from '../ledger/nonce-store.ts'
import { type PaymentConfig, SOLANA_DEVNET } from '../networks.ts'
import { PRICES } from '../pricing.ts'
import { type PaymentRequirement, paymentRequirementsFor } from '../requirements.ts'
import { createPaymentVerifier, type PaymentVerifier } from '../verify-payment.ts'
import { toStandardRequirement } from '../verify-result.ts'
import { createSolanaFeePayer } from './fee-payer.ts'
import { ownFeePayerSvmScheme } from './scheme.ts'
import { createSvmSettler, type SvmSettler } from './settle.ts'

const PRICE = PRICES.sanctions_screen.x402.fresh

let chain: SolanaTestChain
let rpcServer: FakeHttpServer
let config: PaymentConfig
let verifier: PaymentVerifier
let settler: SvmSettler
let requirements: PaymentRequirement[]
let accepted: Record<string, unknown>

beforeAll(async () => {
  chain = await startSolanaTestChain()
  rpcServer = await startFakeSolanaRpcServer(chain.svm)
  config = chainPaymentConfig(chain)
  const nonceStore = createMemoryNonceStore({ clock: systemClock })
  verifier = createPaymentVerifier({
    clock: systemClock,
    schemes: {
      solana: ownFeePayerSvmScheme({ config, nonceStore, feePayer: chain.feePayer.address, rpc: chain.rpc }),
    },
  })
  settler = createSvmSettler({
    feePayer: await createSolanaFeePayer(chain.feePayer.secretKey),
    rpc: chain.rpc,
    confirmTimeoutMs: 2_000,
  })
  requirements = paymentRequirementsFor(config, {
    operationId: 'sanctions_screen',
    quality: 'fresh',
    resourceUrl: 'http://localhost/v1/sanctions/screen',
  })
  accepted = toStandardRequirement(requirements[0]!) as unknown as Record<string, unknown>
}, 60_000)

afterAll(async () => {
  await rpcServer?.close()
})

async function officialHeader(payerIndex: number): Promise<string> {
  const client = officialSvmClient(chain, chain.payers[payerIndex]!, rpcServer.url)
  const challenge = buildPaymentChallenge(requirements)
  const payload = await client.createPaymentPayload(challenge.paymentRequired as unknown as PaymentRequired)
  return encodePaymentSignatureHeader(payload)
}

/** A scheme-shaped transaction from payer 3 with `changes` applied, as a payment header. */
async function hostileHeader(changes: Partial<SvmPaymentParts> = {}) {
  const payer = chain.payers[3]!
  const transaction = await chainPaymentTransaction(chain, payer.signer, PRICE, changes)
  return { transaction, header: svmPaymentHeader(accepted, transaction) }
}

async function expectRefused(header: string, code: string) {
  const before = { payTo: await chain.balanceOf(chain.payTo.address), sent: chain.sent.length }
  const result = await verifier.verify({ header }, requirements)
  expect(result).toMatchObject({ isValid: false, invalidReason: code })
  expect(await chain.balanceOf(chain.payTo.address)).toBe(before.payTo)
  expect(chain.sent.length).toBe(before.sent)
}

describe('x402 exact SVM payments verified and settled by the service (litesvm, SPL Token)', () => {
  it('the official @x402/svm client pays: verified here, co-signed, settled; balances move by exactly the price', async () => {
    const payer = chain.payers[0]!
    const header = await officialHeader(0)
    const before = {
      payer: await chain.balanceOf(payer.address),
      payTo: await chain.balanceOf(chain.payTo.address),
      feePayerSol: chain.lamportsOf(chain.feePayer.address),
    }
    const verified = await verifier.verify({ header }, requirements)
    expect(verified).toMatchObject({ isValid: true, kind: 'solana', payer: payer.address, amount: PRICE })
    if (!verified.isValid) return
    const settled = await settler.settle(verified)
    expect(settled).toMatchObject({ success: true, network: SOLANA_DEVNET, amount: PRICE.toString() })
    expect(settled.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
    expect(before.payer - (await chain.balanceOf(payer.address))).toBe(PRICE)
    expect((await chain.balanceOf(chain.payTo.address)) - before.payTo).toBe(PRICE)
    // The fee payer pays only the network fee (two signatures, 1 micro-lamport per CU).
    const fee = before.feePayerSol - chain.lamportsOf(chain.feePayer.address)
    expect(fee).toBeGreaterThan(0n)
    expect(fee).toBeLessThan(20_000n)
    expect(await settler.transactionLanded(verified)).toBe(true)
  })

  it('a replayed payment (same payer signature) is refused with nonce_replay', async () => {
    const header = await officialHeader(1)
    expect(await verifier.verify({ header }, requirements)).toMatchObject({ isValid: true })
    await expectRefused(header, 'nonce_replay')
  })

  it('a dry run (claimNonce false) does not consume the payment', async () => {
    const header = await officialHeader(1)
    expect(await verifier.verify({ header }, requirements, { claimNonce: false })).toMatchObject({
      isValid: true,
    })
    expect(await verifier.verify({ header }, requirements)).toMatchObject({ isValid: true })
  })

  it('a tampered amount (signed for the price, raised afterwards) is refused with invalid_signature', async () => {
    const { transaction } = await hostileHeader()
    await expectRefused(
      svmPaymentHeader(accepted, tamperAmount(transaction, PRICE, PRICE * 10n)),
      'invalid_signature',
    )
  })

  it('a tampered amount lowered below the price is refused with insufficient_amount', async () => {
    const { transaction } = await hostileHeader()
    await expectRefused(
      svmPaymentHeader(accepted, tamperAmount(transaction, PRICE, 1n)),
      'insufficient_amount',
    )
  })

  it('an underpayment (signed for less than the price) is refused with insufficient_amount', async () => {
    await expectRefused((await hostileHeader({ amount: PRICE - 1n })).header, 'insufficient_amount')
  })

  it('a wrong mint is refused with wrong_asset', async () => {
    const otherMint = (await generateTestSolanaKey()).address
    await expectRefused((await hostileHeader({ mint: otherMint })).header, 'wrong_asset')
  })

  it('wrong decimals in TransferChecked are refused with wrong_asset', async () => {
    await expectRefused((await hostileHeader({ decimals: 9 })).header, 'wrong_asset')
  })

  it('a transfer to another account than payTo is refused with wrong_recipient', async () => {
    const other = (await generateTestSolanaKey()).address
    await expectRefused((await hostileHeader({ recipient: other })).header, 'wrong_recipient')
  })

  it('an extra instruction (a SOL transfer) is refused with instruction_layout', async () => {
    const payer = chain.payers[3]!
    const drain = systemTransferInstruction(payer.signer, (await generateTestSolanaKey()).address, 1n)
    await expectRefused((await hostileHeader({ extraInstructions: [drain] })).header, 'instruction_layout')
  })

  it('a fee payer swap (another key as fee payer) is refused with fee_payer_mismatch', async () => {
    const other = (await generateTestSolanaKey()).address
    await expectRefused((await hostileHeader({ feePayer: other })).header, 'fee_payer_mismatch')
  })

  it("the service's fee payer as transfer authority and source is refused with fee_payer_not_isolated", async () => {
    await expectRefused(
      (
        await hostileHeader({
          authority: chain.feePayer.address,
          source: chain.feePayer.address,
        })
      ).header,
      'fee_payer_not_isolated',
    )
  })

  it('an expired blockhash is refused with expired', async () => {
    const { header } = await hostileHeader()
    chain.svm.expireBlockhash()
    await expectRefused(header, 'expired')
  })

  it('a compute unit price above 5 lamports per CU is refused with compute_budget_too_high', async () => {
    await expectRefused(
      (await hostileHeader({ microLamports: 5_000_001n })).header,
      'compute_budget_too_high',
    )
  })

  it('a compute unit limit above 400,000 is refused with compute_budget_too_high', async () => {
    await expectRefused((await hostileHeader({ computeUnits: 400_001 })).header, 'compute_budget_too_high')
  })

  it('a signer beyond the payer and the fee payer is refused with extra_signers', async () => {
    const payer = chain.payers[3]!
    const cosigner = await generateTestSolanaKey()
    const touch = systemTransferInstruction(cosigner.signer, payer.address, 0n)
    await expectRefused((await hostileHeader({ extraInstructions: [touch] })).header, 'extra_signers')
  })

  it('a missing payer signature is refused with invalid_signature', async () => {
    const payer = chain.payers[3]!
    await expectRefused(
      (await hostileHeader({ authority: createNoopSigner(payer.address) as never })).header,
      'invalid_signature',
    )
  })

  it('a payload that is not a transaction is refused with malformed_payload', async () => {
    await expectRefused(svmPaymentHeader(accepted, 'bm90IGEgdHJhbnNhY3Rpb24='), 'malformed_payload')
  })

  it('a payment for another mint in accepted.asset is refused with wrong_asset', async () => {
    const { transaction } = await hostileHeader()
    await expectRefused(
      svmPaymentHeader({ ...accepted, asset: 'So11111111111111111111111111111111111111112' }, transaction),
      'wrong_asset',
    )
  })

  it('settling a payment whose blockhash expired after verification fails with expired and moves nothing', async () => {
    const { header } = await hostileHeader()
    const verified = await verifier.verify({ header }, requirements)
    expect(verified.isValid).toBe(true)
    if (!verified.isValid) return
    const before = await chain.balanceOf(chain.payTo.address)
    chain.svm.expireBlockhash()
    expect(await settler.settle(verified)).toMatchObject({
      success: false,
      errorReason: 'expired',
      retryable: false,
    })
    expect(await chain.balanceOf(chain.payTo.address)).toBe(before)
    expect(await settler.transactionLanded(verified)).toBe(false)
  })

  it('settling a payer without the funds fails with insufficient_funds', async () => {
    const poor = await generateTestSolanaKey()
    await chain.fundTokens(poor.address, 1n)
    const transaction = await chainPaymentTransaction(chain, poor.signer, PRICE)
    const verified = await verifier.verify({ header: svmPaymentHeader(accepted, transaction) }, requirements)
    expect(verified.isValid).toBe(true)
    if (!verified.isValid) return
    expect(await settler.settle(verified)).toMatchObject({
      success: false,
      errorReason: 'insufficient_funds',
    })
  })
})
