import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, x402HTTPClient } from '@x402/core/http'
import {
  PaymentRequiredSchema,
  PaymentRequiredV1Schema,
  PaymentRequiredV2Schema,
  PaymentRequirementsV1Schema,
} from '@x402/core/schemas'
import { describe, expect, it } from 'vitest'
import { PaymentRequirementsSchema as X402V1RequirementsSchema } from 'x402/types'
import { usd } from '../money.ts'
import { buildPaymentChallenge, encodeBase64Json } from './challenge.ts'
import {
  BASE_MAINNET,
  BASE_SEPOLIA,
  createPaymentConfig,
  KNOWN_NETWORKS,
  SOLANA_DEVNET,
  SOLANA_MAINNET,
} from './networks.ts'
import { paymentRequirementsFor } from './requirements.ts'

const EVM_PAY_TO = '0x2222222222222222222222222222222222222222'
const SOLANA_PAY_TO = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
const config = createPaymentConfig({
  networks: [BASE_MAINNET, BASE_SEPOLIA, SOLANA_MAINNET, SOLANA_DEVNET],
  evmPayTo: EVM_PAY_TO,
  solanaPayTo: SOLANA_PAY_TO,
  overrides: { [SOLANA_MAINNET]: { feePayer: '2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4' } },
})
const requirements = paymentRequirementsFor(config, {
  operationId: 'entity_check',
  quality: 'enhanced',
  resourceUrl: 'https://api.test/v1/entity/check',
  description: 'Full entity trust check',
})

describe('buildPaymentChallenge', () => {
  const challenge = buildPaymentChallenge(requirements)

  it('produces a header object the official @x402/core v2 schema accepts', () => {
    const parsed = PaymentRequiredV2Schema.safeParse(challenge.paymentRequired)
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true)
    expect(PaymentRequiredSchema.safeParse(challenge.paymentRequired).success).toBe(true)
  })

  it('produces a body that is a whole x402 v1 object: version 1 with v1 network names', () => {
    expect(challenge.body.x402Version).toBe(1)
    const parsed = PaymentRequiredV1Schema.safeParse(challenge.body)
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true)
    expect(challenge.body.accepts.map((a) => a.networkId)).toEqual(
      challenge.paymentRequired.accepts.map((a) => a.network),
    )
  })

  it('produces body accepts items that the x402 v1 schema (as x402-fetch parses them) accepts', () => {
    for (const item of challenge.body.accepts) {
      const parsed = X402V1RequirementsSchema.safeParse(item)
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true)
      expect(PaymentRequirementsV1Schema.safeParse(item).success).toBe(true)
    }
    expect(challenge.body.accepts.map((a) => a.network)).toEqual([
      'base',
      'base-sepolia',
      'solana',
      'solana-devnet',
    ])
    expect(challenge.paymentRequired.accepts.map((a) => a.network)).toEqual([
      BASE_MAINNET,
      BASE_SEPOLIA,
      SOLANA_MAINNET,
      SOLANA_DEVNET,
    ])
  })

  it('carries the spec fields on every accepts item, amount in 6-decimal units for the quality', () => {
    const [base, sepolia, solana] = challenge.body.accepts
    expect(base).toMatchObject({
      chainId: 8453,
      currency: 'USDC',
      contractAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      amount: '290000',
      maxAmountRequired: '290000',
      recipient: EVM_PAY_TO,
      payTo: EVM_PAY_TO,
      description: 'Full entity trust check',
      scheme: 'exact',
      extra: { name: 'USD Coin', version: '2' },
      maxTimeoutSeconds: 300,
    })
    expect(sepolia).toMatchObject({ chainId: 84532, contractAddress: KNOWN_NETWORKS[BASE_SEPOLIA]?.asset })
    expect(solana).toMatchObject({
      networkId: SOLANA_MAINNET,
      contractAddress: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      recipient: SOLANA_PAY_TO,
      extra: { feePayer: '2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4' },
    })
  })

  it('changes the amount with X-Response-Quality', () => {
    const cached = paymentRequirementsFor(config, {
      operationId: 'entity_check',
      quality: 'cached',
      resourceUrl: 'https://api.test/v1/entity/check',
    })
    expect(buildPaymentChallenge(cached).paymentRequired.accepts[0]?.amount).toBe('110000')
  })

  it('encodes the header as base64 JSON that the official decoder and HTTP client read back', () => {
    expect(encodeBase64Json(challenge.paymentRequired)).toMatch(/^[A-Za-z0-9+/]+=*$/)
    expect(decodePaymentRequiredHeader(encodeBase64Json(challenge.paymentRequired))).toEqual(
      challenge.paymentRequired,
    )
    const client = new x402HTTPClient(new x402Client())
    const read = client.getPaymentRequiredResponse((name) =>
      name === 'PAYMENT-REQUIRED' ? encodeBase64Json(challenge.paymentRequired) : null,
    )
    expect(read).toEqual(challenge.paymentRequired)
  })

  it('a plain challenge has no errorCode; a rejection carries errorCode beside error', () => {
    expect(challenge.body.error).toBe('Payment required')
    expect(challenge.body).not.toHaveProperty('errorCode')
    const rejected = buildPaymentChallenge(requirements, { code: 'nonce_replay' })
    expect(rejected.body).toMatchObject({ x402Version: 1, errorCode: 'nonce_replay' })
    expect(rejected.paymentRequired).toMatchObject({ x402Version: 2, errorCode: 'nonce_replay' })
    expect(rejected.body.error).toMatch(/nonce/i)
    expect(PaymentRequiredV2Schema.safeParse(rejected.paymentRequired).success).toBe(true)
  })

  it('describes the resource with its URL and mime type', () => {
    expect(challenge.paymentRequired.resource).toEqual({
      url: 'https://api.test/v1/entity/check',
      description: 'Full entity trust check',
      mimeType: 'application/json',
    })
  })

  it('refuses to build a challenge nobody can pay', () => {
    expect(() => buildPaymentChallenge([])).toThrow()
    expect(() => createPaymentConfig({ networks: [BASE_MAINNET] })).toThrow(/payTo/)
    expect(() => createPaymentConfig({ networks: ['eip155:1'], evmPayTo: EVM_PAY_TO })).toThrow(/unknown/)
  })

  it('takes the amount from the price table', () => {
    const screen = paymentRequirementsFor(config, {
      operationId: 'sanctions_screen',
      quality: 'enhanced',
      resourceUrl: 'https://api.test/v1/sanctions/screen',
    })
    expect(screen[0]?.amount).toBe(usd('0.005'))
  })
})
