import { generatePrivateKey } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { signAuthorization } from '../../../test/support/chain/sign-authorization.ts'
import { systemClock } from '../../context.ts'
import { exactEvmScheme } from '../evm/scheme.ts'
import { createMemoryNonceStore } from '../ledger/nonce-store.ts'
import { BASE_SEPOLIA, createPaymentConfig } from '../networks.ts'
import { buildPaymentRequirements } from '../requirements.ts'
import { createPaymentVerifier } from '../verify-payment.ts'
import { toStandardRequirement } from '../verify-result.ts'
import { parseFacilitatorRequest } from './endpoints.ts'

const ASSET = '0x1111111111111111111111111111111111111111'
const PAY_TO = '0x2222222222222222222222222222222222222222'
const config = createPaymentConfig({
  networks: [BASE_SEPOLIA],
  evmPayTo: PAY_TO,
  overrides: { [BASE_SEPOLIA]: { asset: ASSET, eip712: { name: 'USD Coin', version: '2' } } },
})
const [requirement] = buildPaymentRequirements(config, {
  amount: 110_000n,
  resourceUrl: 'https://api.test/v1/risk/score',
  description: 'risk',
})
const standard = toStandardRequirement(requirement!)

async function facilitatorBody() {
  const { signature, authorization } = await signAuthorization({
    key: generatePrivateKey(),
    to: PAY_TO,
    value: 110_000n,
    asset: ASSET,
  })
  return {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      resource: { url: 'https://api.test/v1/risk/score' },
      accepted: standard,
      payload: { signature, authorization },
    },
    paymentRequirements: standard,
  }
}

describe('parseFacilitatorRequest', () => {
  it('refuses requirements the service does not issue, and requirements without a resource', async () => {
    const body = await facilitatorBody()
    const seen: [string, bigint][] = []
    const refused = parseFacilitatorRequest(config, body, (url, amount) => {
      seen.push([url, amount])
      return false
    })
    expect(refused).toMatchObject({ ok: false, invalidReason: 'invalid_requirements' })
    expect(seen).toContainEqual(['https://api.test/v1/risk/score', 110_000n])
    const { resource: _resource, ...withoutResource } = body.paymentPayload
    const { resource: _v1Resource, ...requirementsWithoutResource } =
      body.paymentRequirements as unknown as Record<string, unknown>
    expect(
      parseFacilitatorRequest(config, {
        ...body,
        paymentPayload: withoutResource,
        paymentRequirements: requirementsWithoutResource,
      }),
    ).toMatchObject({ ok: false, invalidReason: 'invalid_requirements' })
  })

  it('turns a facilitator request into a payment and requirements the verifier accepts', async () => {
    const request = parseFacilitatorRequest(config, await facilitatorBody())
    expect(request.ok).toBe(true)
    if (!request.ok) return
    expect(request.requirements[0]).toMatchObject({ amount: 110_000n, network: { network: BASE_SEPOLIA } })
    const nonceStore = createMemoryNonceStore({ clock: systemClock })
    const verifier = createPaymentVerifier({
      clock: systemClock,
      schemes: { evm: exactEvmScheme({ config, nonceStore }) },
    })
    expect((await verifier.verify(request.source, request.requirements)).isValid).toBe(true)
  })

  it('lets /x402/verify dry-run a payment without consuming its nonce', async () => {
    const request = parseFacilitatorRequest(config, await facilitatorBody())
    if (!request.ok) throw new Error('request did not parse')
    const nonceStore = createMemoryNonceStore({ clock: systemClock })
    const verifier = createPaymentVerifier({
      clock: systemClock,
      schemes: { evm: exactEvmScheme({ config, nonceStore }) },
    })
    expect((await verifier.verify(request.source, request.requirements, { claimNonce: false })).isValid).toBe(
      true,
    )
    expect((await verifier.verify(request.source, request.requirements, { claimNonce: false })).isValid).toBe(
      true,
    )
    expect((await verifier.verify(request.source, request.requirements)).isValid).toBe(true)
    expect(await verifier.verify(request.source, request.requirements)).toMatchObject({
      invalidReason: 'nonce_replay',
    })
  })

  it('only facilitates payments to this service in the configured USDC', async () => {
    const body = await facilitatorBody()
    const other = '0x3333333333333333333333333333333333333333'
    expect(
      parseFacilitatorRequest(config, { ...body, paymentRequirements: { ...standard, payTo: other } }),
    ).toMatchObject({
      ok: false,
      invalidReason: 'wrong_recipient',
    })
    expect(
      parseFacilitatorRequest(config, { ...body, paymentRequirements: { ...standard, asset: other } }),
    ).toMatchObject({
      ok: false,
      invalidReason: 'wrong_asset',
    })
    expect(
      parseFacilitatorRequest(config, { ...body, paymentRequirements: { ...standard, network: 'eip155:1' } }),
    ).toMatchObject({ ok: false, invalidReason: 'unsupported_network' })
    expect(parseFacilitatorRequest(config, { paymentPayload: body.paymentPayload })).toMatchObject({
      ok: false,
      invalidReason: 'malformed_payload',
    })
  })
})
