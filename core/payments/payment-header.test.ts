import { describe, expect, it } from 'vitest'
import { decodePaymentHeader, MAX_PAYMENT_HEADER_LENGTH, parsePaymentPayload } from './payment-header.ts'

const evmPayload = {
  signature: `0x${'ab'.repeat(65)}`,
  authorization: {
    from: `0x${'11'.repeat(20)}`,
    to: `0x${'22'.repeat(20)}`,
    value: '110000',
    validAfter: '0',
    validBefore: '1900000000',
    nonce: `0x${'33'.repeat(32)}`,
  },
}
const v2 = {
  x402Version: 2,
  resource: { url: 'https://api.test/x' },
  accepted: {
    scheme: 'exact',
    network: 'eip155:84532',
    amount: '110000',
    asset: `0x${'44'.repeat(20)}`,
    payTo: `0x${'22'.repeat(20)}`,
    maxTimeoutSeconds: 300,
    extra: { name: 'USD Coin', version: '2' },
  },
  payload: evmPayload,
  extensions: {},
}
const v1 = { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: evmPayload }
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')

describe('decodePaymentHeader', () => {
  it('reads a v2 payload with accepted', () => {
    const result = decodePaymentHeader(b64(v2))
    expect(result).toMatchObject({
      ok: true,
      payment: { x402Version: 2, shape: 'v2', network: 'eip155:84532' },
    })
  })

  it('reads a v1 payload with top-level scheme and network', () => {
    expect(decodePaymentHeader(b64(v1))).toMatchObject({
      ok: true,
      payment: { x402Version: 1, shape: 'v1', scheme: 'exact', network: 'base-sepolia' },
    })
  })

  it('reads the v1 shape stamped with x402Version 2, as x402-fetch sends after a v2 challenge', () => {
    expect(decodePaymentHeader(b64({ ...v1, x402Version: 2 }))).toMatchObject({
      ok: true,
      payment: { x402Version: 2, shape: 'v1' },
    })
  })

  it('accepts base64url as well as base64', () => {
    const url = Buffer.from(JSON.stringify(v2)).toString('base64url')
    expect(decodePaymentHeader(url).ok).toBe(true)
  })

  it('answers malformed_payload for non-base64, non-JSON, non-object and oversized values', () => {
    for (const bad of [
      '%%%',
      b64('a string').replace(/=+$/, ''),
      Buffer.from('{nope').toString('base64'),
      '',
    ]) {
      expect(decodePaymentHeader(bad)).toMatchObject({ ok: false, code: 'malformed_payload' })
    }
    expect(decodePaymentHeader('A'.repeat(MAX_PAYMENT_HEADER_LENGTH + 4))).toMatchObject({
      code: 'malformed_payload',
    })
    expect(parsePaymentPayload([v2])).toMatchObject({ ok: false, code: 'malformed_payload' })
  })

  it('answers unsupported_version for an unknown x402Version', () => {
    expect(decodePaymentHeader(b64({ ...v2, x402Version: 3 }))).toMatchObject({
      ok: false,
      code: 'unsupported_version',
    })
  })

  it('answers malformed_payload for a v2 payload whose accepted lacks fields', () => {
    const { amount: _amount, ...accepted } = v2.accepted
    expect(parsePaymentPayload({ ...v2, accepted })).toMatchObject({ ok: false, code: 'malformed_payload' })
  })
})
