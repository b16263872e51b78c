import { type Hex, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { signAuthorization } from '../../../test/support/chain/sign-authorization.ts'
import { usd } from '../../money.ts'
import { createMemoryNonceStore } from '../ledger/nonce-store.ts'
import { BASE_MAINNET, BASE_SEPOLIA, createPaymentConfig, type PaymentConfig } from '../networks.ts'
import { type DecodedPayment, parsePaymentPayload } from '../payment-header.ts'
import { buildPaymentRequirements, type PaymentRequirement, paymentRequirementsFor } from '../requirements.ts'
import { toStandardRequirement } from '../verify-result.ts'
import { verifyEvmPayment } from './verify.ts'

const ASSET = '0x1111111111111111111111111111111111111111'
const PAY_TO = '0x2222222222222222222222222222222222222222'
const payerKey = generatePrivateKey()
const payer = privateKeyToAccount(payerKey)

const config: PaymentConfig = createPaymentConfig({
  networks: [BASE_SEPOLIA],
  evmPayTo: PAY_TO,
  overrides: { [BASE_SEPOLIA]: { asset: ASSET, eip712: { name: 'USD Coin', version: '2' } } },
})
const requirements = buildPaymentRequirements(config, {
  amount: usd('0.11'),
  resourceUrl: 'https://api.test/v1/risk/score',
  description: 'risk score',
})
const requirement = requirements[0] as PaymentRequirement
const nowSeconds = () => Math.floor(Date.now() / 1000)

interface SignOptions {
  value?: bigint
  signedValue?: bigint
  to?: string
  validAfter?: bigint
  validBefore?: bigint
  nonce?: Hex
  chainId?: number
  network?: string
  asset?: string
  key?: Hex
  from?: string
}

/** Signs an EIP-3009 authorization like the official client does and wraps it as a v2 payload. */
async function signedPayment(options: SignOptions = {}): Promise<DecodedPayment> {
  const signed = await signAuthorization({
    key: options.key ?? payerKey,
    to: options.to ?? PAY_TO,
    value: options.signedValue ?? options.value ?? usd('0.11'),
    asset: ASSET,
    chainId: options.chainId,
    validAfter: options.validAfter,
    validBefore: options.validBefore ?? BigInt(nowSeconds() + 240),
    nonce: options.nonce,
  })
  const accepted = { ...toStandardRequirement(requirement), network: options.network ?? BASE_SEPOLIA }
  if (options.asset) accepted.asset = options.asset
  const decoded = parsePaymentPayload({
    x402Version: 2,
    accepted,
    payload: {
      signature: signed.signature,
      authorization: {
        ...signed.authorization,
        from: options.from ?? signed.authorization.from,
        ...(options.value === undefined ? {} : { value: options.value.toString() }),
      },
    },
  })
  if (!decoded.ok) throw new Error(decoded.message)
  return decoded.payment
}

function deps() {
  return {
    config,
    nonceStore: createMemoryNonceStore({ clock: { now: () => new Date() } }),
  }
}

const verify = (payment: DecodedPayment, d = deps(), reqs: readonly PaymentRequirement[] = requirements) =>
  verifyEvmPayment(d, { payment, requirements: reqs, now: new Date() })

describe('verifyEvmPayment', () => {
  it('accepts a correctly signed payment and reports payer, amount and network', async () => {
    const result = await verify(await signedPayment({ value: usd('0.15') }))
    expect(result).toMatchObject({ isValid: true, payer: payer.address, amount: 150_000n, price: 110_000n })
    if (!result.isValid) return
    expect(result.network).toBe(BASE_SEPOLIA)
    expect(result.paymentId).toMatch(
      new RegExp(`^eip155:84532:${payer.address.toLowerCase()}:0x[0-9a-f]{64}$`),
    )
    expect(result.paymentPayload.accepted).toEqual(result.paymentRequirements)
  })

  it('treats a wrongly checksummed address as data, not an exception', async () => {
    const payment = await signedPayment()
    const authorization = payment.payload.authorization as Record<string, string>
    const from = authorization.from!
    const badChecksum = `0x${[...from.slice(2)].map((c) => (/[a-f]/.test(c) ? c.toUpperCase() : c.toLowerCase())).join('')}`
    const mangled = {
      ...payment,
      payload: { ...payment.payload, authorization: { ...authorization, from: badChecksum } },
    }
    expect((await verify(mangled)).isValid).toBe(true)
  })

  it('refuses an amount below the price as insufficient_amount', async () => {
    const result = await verify(await signedPayment({ value: usd('0.109999') }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'insufficient_amount' })
  })

  it('prices by quality: a fresh-priced payment does not buy an enhanced request', async () => {
    const enhanced = paymentRequirementsFor(config, {
      operationId: 'entity_check',
      quality: 'enhanced',
      resourceUrl: 'https://api.test/v1/entity/check',
    })
    const fresh = usd('0.20')
    expect((await verify(await signedPayment({ value: fresh }), deps(), enhanced)).isValid).toBe(false)
    expect((await verify(await signedPayment({ value: usd('0.29') }), deps(), enhanced)).isValid).toBe(true)
  })

  it('refuses a validBefore in the past as expired', async () => {
    const result = await verify(await signedPayment({ validBefore: BigInt(nowSeconds() - 1) }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'expired' })
  })

  it('refuses a validBefore too close to settle as expired', async () => {
    const result = await verify(await signedPayment({ validBefore: BigInt(nowSeconds() + 2) }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'expired' })
  })

  it('refuses a validBefore more than 5 minutes ahead as valid_before_too_far', async () => {
    const result = await verify(await signedPayment({ validBefore: BigInt(nowSeconds() + 330) }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'valid_before_too_far' })
  })

  it('refuses a validAfter in the future as not_yet_valid', async () => {
    const result = await verify(await signedPayment({ validAfter: BigInt(nowSeconds() + 60) }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'not_yet_valid' })
  })

  it('refuses the same payment a second time as nonce_replay', async () => {
    const d = deps()
    const payment = await signedPayment()
    expect((await verify(payment, d)).isValid).toBe(true)
    expect(await verify(payment, d)).toMatchObject({ isValid: false, invalidReason: 'nonce_replay' })
  })

  it('refuses a tampered value as invalid_signature', async () => {
    const result = await verify(await signedPayment({ signedValue: usd('0.11'), value: usd('5') }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'invalid_signature' })
  })

  it('refuses a signature by someone other than `from` as invalid_signature', async () => {
    const result = await verify(await signedPayment({ key: generatePrivateKey(), from: payer.address }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'invalid_signature', payer: payer.address })
  })

  it('refuses a signature made for another chain id as invalid_signature', async () => {
    const result = await verify(await signedPayment({ chainId: 8453 }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'invalid_signature' })
  })

  it('refuses a chain that is not offered as unsupported_network', async () => {
    const result = await verify(await signedPayment({ network: BASE_MAINNET, chainId: 8453 }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'unsupported_network' })
  })

  it('refuses a payment to another address as wrong_recipient', async () => {
    const result = await verify(await signedPayment({ to: '0x3333333333333333333333333333333333333333' }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'wrong_recipient' })
  })

  it('refuses a payment in another token as wrong_asset', async () => {
    const result = await verify(await signedPayment({ asset: '0x4444444444444444444444444444444444444444' }))
    expect(result).toMatchObject({ isValid: false, invalidReason: 'wrong_asset' })
  })

  it('refuses a scheme other than exact as unsupported_scheme', async () => {
    const payment = { ...(await signedPayment()), scheme: 'upto' }
    expect(await verify(payment)).toMatchObject({ isValid: false, invalidReason: 'unsupported_scheme' })
  })

  it('refuses a payload without a signature as malformed_payload', async () => {
    const payment = await signedPayment()
    const broken = { ...payment, payload: { authorization: payment.payload.authorization } }
    expect(await verify(broken)).toMatchObject({ isValid: false, invalidReason: 'malformed_payload' })
  })

  it('does not burn the nonce of a forged payment: the genuine one still verifies', async () => {
    const d = deps()
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
    const forged = await signedPayment({ nonce, key: generatePrivateKey(), from: payer.address })
    expect((await verify(forged, d)).isValid).toBe(false)
    expect((await verify(await signedPayment({ nonce }), d)).isValid).toBe(true)
  })

  it('lets exactly one of 50 concurrent verifications of one payment through', async () => {
    const d = deps()
    const payment = await signedPayment()
    const results = await Promise.all(Array.from({ length: 50 }, () => verify(payment, d)))
    expect(results.filter((r) => r.isValid)).toHaveLength(1)
    const reasons = results.filter((r) => !r.isValid).map((r) => (r.isValid ? '' : r.invalidReason))
    expect(new Set(reasons)).toEqual(new Set(['nonce_replay']))
    expect(reasons).toHaveLength(49)
  })
})
