import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeHttpServer } from '../../../test/support/fakes/fake-http-server.ts'
import { startFakeSolanaRpcServer } from '../../../test/support/fakes/fake-solana-rpc-server.ts'
import {
  generateTestSolanaKey,
  type SolanaTestChain,
  startSolanaTestChain,
} from '../../../test/support/solana/litesvm-chain.ts'
import {
  chainPaymentConfig,
  chainPaymentTransaction,
  svmPaymentHeader,
} from '../../../test/support/solana/svm-payment.ts'
import { systemClock } from '../../context.ts'
import { createMemoryNonceStore } from '../ledger/nonce-store.ts'
import { PRICES } from '../pricing.ts'
import { paymentRequirementsFor } from '../requirements.ts'
import { createPaymentVerifier } from '../verify-payment.ts'
import { toStandardRequirement, type VerifiedPayment } from '../verify-result.ts'
import { createSolanaFeePayer, readSolanaSecretKey, solanaAddressOfSecretKey } from './fee-payer.ts'
import { createSolanaJsonRpc, type SolanaRpc, SolanaRpcError } from './rpc.ts'
import { ownFeePayerSvmScheme } from './scheme.ts'
import { createSvmSettler } from './settle.ts'

const PRICE = PRICES.sanctions_screen.x402.fresh

let chain: SolanaTestChain
let fake: FakeHttpServer
let rpc: SolanaRpc

beforeAll(async () => {
  chain = await startSolanaTestChain({ payerCount: 2 })
  fake = await startFakeSolanaRpcServer(chain.svm)
  rpc = createSolanaJsonRpc({ url: fake.url, timeoutMs: 1_000 })
})

afterAll(async () => {
  await fake?.close()
})

/** A verified payment (through the JSON-RPC adapter) ready to settle. */
async function verifiedPayment(payerIndex = 0): Promise<VerifiedPayment> {
  const config = chainPaymentConfig(chain)
  const requirements = paymentRequirementsFor(config, {
    operationId: 'sanctions_screen',
    quality: 'fresh',
    resourceUrl: 'http://localhost/v1/sanctions/screen',
  })
  const nonceStore = createMemoryNonceStore({ clock: systemClock })
  const verifier = createPaymentVerifier({
    clock: systemClock,
    schemes: { solana: ownFeePayerSvmScheme({ config, nonceStore, feePayer: chain.feePayer.address, rpc }) },
  })
  const transaction = await chainPaymentTransaction(chain, chain.payers[payerIndex]!.signer, PRICE)
  const header = svmPaymentHeader(toStandardRequirement(requirements[0]!) as never, transaction)
  const verified = await verifier.verify({ header }, requirements)
  if (!verified.isValid) throw new Error(`not verified: ${verified.invalidReason}`)
  return verified
}

describe('Solana JSON-RPC adapter against a JSON-RPC server in the real format (litesvm behind it)', () => {
  it('isBlockhashValid: true for the latest blockhash, false for an unknown one', async () => {
    expect(await rpc.isBlockhashValid(chain.svm.latestBlockhash())).toBe(true)
    expect(await rpc.isBlockhashValid('4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn')).toBe(false)
    const sent = JSON.parse(fake.requests.at(-1)!.body)
    expect(sent).toMatchObject({
      jsonrpc: '2.0',
      method: 'isBlockhashValid',
      params: [expect.any(String), { commitment: 'confirmed' }],
    })
  })

  it('simulateTransaction of a partially signed transaction: null for a payer with the funds, custom:1 without', async () => {
    const build = (payer: (typeof chain.payers)[number]) =>
      chainPaymentTransaction(chain, payer.signer, PRICE)
    expect(await rpc.simulateTransaction(await build(chain.payers[0]!))).toEqual({ err: null })
    const poor = await generateTestSolanaKey()
    await chain.fundTokens(poor.address, 1n)
    expect(await rpc.simulateTransaction(await build(poor))).toEqual({ err: 'custom:1' })
    expect(JSON.parse(fake.requests.at(-1)!.body).params[1]).toMatchObject({
      encoding: 'base64',
      sigVerify: false,
      replaceRecentBlockhash: false,
    })
  })

  it('a signature the cluster never saw is not_found', async () => {
    const signature =
      '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'
    expect(await rpc.signatureStatus(signature)).toEqual({ state: 'not_found' })
  })

  it('429, 500 and an unreachable RPC are unavailable; a JSON-RPC error is rejected', async () => {
    fake.behave({ mode: 'error', error: 'rate_limited' })
    await expect(rpc.isBlockhashValid('x')).rejects.toMatchObject({ kind: 'unavailable' })
    fake.behave({ mode: 'error', error: 'server_error' })
    await expect(rpc.isBlockhashValid('x')).rejects.toMatchObject({ kind: 'unavailable' })
    fake.behave({ mode: 'error', error: 'node_unhealthy' })
    await expect(rpc.isBlockhashValid('x')).rejects.toMatchObject({ kind: 'rejected' })
    fake.behave({ mode: 'normal' })
    const closed = createSolanaJsonRpc({ url: 'http://127.0.0.1:9/', timeoutMs: 500 })
    await expect(closed.signatureStatus('x')).rejects.toBeInstanceOf(SolanaRpcError)
  })

  it('settles through JSON-RPC: sendTransaction then getSignatureStatuses, exactly the price moves', async () => {
    const payment = await verifiedPayment(0)
    const settler = createSvmSettler({
      feePayer: await createSolanaFeePayer(chain.feePayer.secretKey),
      rpc,
      confirmTimeoutMs: 2_000,
      pollIntervalMs: 20,
    })
    const before = await chain.balanceOf(chain.payTo.address)
    const result = await settler.settle(payment)
    expect(result).toMatchObject({ success: true, amount: PRICE.toString() })
    expect((await chain.balanceOf(chain.payTo.address)) - before).toBe(PRICE)
    const methods = fake.requests.slice(-2).map((request) => JSON.parse(request.body).method)
    expect(methods).toEqual(['sendTransaction', 'getSignatureStatuses'])
    expect(JSON.parse(fake.requests.at(-2)!.body).params[1]).toMatchObject({
      encoding: 'base64',
      skipPreflight: false,
    })
    // A retry re-sends the same transaction: the cluster says AlreadyProcessed, the status says confirmed.
    expect(await settler.settle(payment)).toMatchObject({ success: true, transaction: result.transaction })
    expect((await chain.balanceOf(chain.payTo.address)) - before).toBe(PRICE)
    expect(await settler.transactionLanded(payment)).toBe(true)
  })

  it('an RPC that is down makes settlement retryable; an expired blockhash makes it final', async () => {
    const payment = await verifiedPayment(1)
    const settler = createSvmSettler({
      feePayer: await createSolanaFeePayer(chain.feePayer.secretKey),
      rpc,
      confirmTimeoutMs: 500,
      pollIntervalMs: 20,
    })
    fake.behave({ mode: 'error', error: 'server_error' })
    expect(await settler.settle(payment)).toMatchObject({
      success: false,
      errorReason: 'settlement_failed',
      retryable: true,
    })
    expect(await settler.transactionLanded(payment)).toBeUndefined()
    fake.behave({ mode: 'normal' })
    chain.svm.expireBlockhash()
    expect(await settler.settle(payment)).toMatchObject({
      success: false,
      errorReason: 'expired',
      retryable: false,
    })
    expect(await settler.transactionLanded(payment)).toBe(false)
  })
})

describe('SOLANA_FEE_PAYER_KEY forms', () => {
  it('reads the base58 64-byte secret and the solana-keygen JSON file, and derives the address', async () => {
    const key = await generateTestSolanaKey()
    expect(readSolanaSecretKey(key.base58)).toEqual(key.secretKey)
    const dir = mkdtempSync(join(tmpdir(), 'solana-key-'))
    const file = join(dir, 'id.json')
    writeFileSync(file, JSON.stringify([...key.secretKey]))
    expect(readSolanaSecretKey(file)).toEqual(key.secretKey)
    expect(solanaAddressOfSecretKey(key.secretKey)).toBe(key.address)
    const feePayer = await createSolanaFeePayer(key.secretKey)
    expect(feePayer.address).toBe(key.address)
  })

  it('refuses a wrong length, a missing file, a non-JSON file and mismatched halves, never echoing the key', async () => {
    const key = await generateTestSolanaKey()
    expect(() => readSolanaSecretKey(key.address)).toThrow(/64 bytes/)
    expect(() => readSolanaSecretKey('/nonexistent/id.json')).toThrow(/neither a base58 secret key nor/)
    const dir = mkdtempSync(join(tmpdir(), 'solana-key-'))
    writeFileSync(join(dir, 'bad.json'), 'not json')
    expect(() => readSolanaSecretKey(join(dir, 'bad.json'))).toThrow(/not JSON/)
    const other = await generateTestSolanaKey()
    const mixed = new Uint8Array(64)
    mixed.set(key.secretKey.subarray(0, 32), 0)
    mixed.set(other.secretKey.subarray(32), 32)
    await expect(createSolanaFeePayer(mixed)).rejects.toThrow()
    try {
      readSolanaSecretKey(`${key.base58}0`)
    } catch (error) {
      expect(String(error)).not.toContain(key.base58)
    }
  })
})
