import { decodePaymentRequiredHeader } from '@x402/core/http'
import {
  type DiscoveryExtension,
  extractDiscoveryInfo,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
} from '@x402/extensions/bazaar'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeOperation } from '../core/discovery/describe-operation.ts'
import { operations } from '../core/operations/registry.ts'
import { PRICES } from '../core/payments/pricing.ts'
import type { Service } from '../server/compose.ts'
import { createTestService } from '../test/support/service.ts'
import { paymentRequiredOf } from '../test/support/tool-errors.ts'
import { BAZAAR_SERVICE_NAME, BAZAAR_TAGS } from './bazaar.ts'

/** What many proxies allow per header line (nginx, AWS ALB, Cloudflare): 8 KB. */
const HEADER_LIMIT = 8 * 1024

function officialErrors(extension: unknown): string[] {
  return [
    ...(validateDiscoveryExtension(extension as DiscoveryExtension).errors ?? []),
    ...(validateDiscoveryExtensionSpec(extension as Record<string, unknown>).errors ?? []),
  ]
}

const priced = operations.map(describeOperation).filter((description) => description.prices !== null)

/** The unpaid request of a priced route: its example input as query string or JSON body. */
function unpaidRequest(service: Service, description: (typeof priced)[number]) {
  if (description.method === 'GET') {
    const query = new URLSearchParams(description.exampleInput as Record<string, string>)
    return service.app.request(`${description.path}?${query}`)
  }
  return service.app.request(description.path, {
    method: description.method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(description.exampleInput),
  })
}

describe('x402 Bazaar discovery data in 402 challenges and x402.json', () => {
  let service: Service

  beforeAll(async () => {
    service = await createTestService('pglite', {
      // x402 on (two networks), so an unpaid call gets the challenge; the facilitator is never reached.
      X402_PAY_TO: `0x${'11'.repeat(20)}`,
      X402_NETWORKS: 'eip155:8453,eip155:84532',
      X402_FACILITATOR_URL: 'http://127.0.0.1:9',
      PUBLIC_BASE_URL: 'https://api.example.test',
    })
  })
  afterAll(async () => {
    await service?.close()
  })

  it('puts extensions.bazaar and the service metadata in the PAYMENT-REQUIRED header of a priced REST route', async () => {
    const response = await service.app.request('/v1/entity/check', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ entity_name: 'Acme Trading B.V.', country: 'NL' }),
    })
    expect(response.status).toBe(402)
    // Decoded by the official x402 v2 client code, as @x402/fetch reads it.
    const paymentRequired = decodePaymentRequiredHeader(response.headers.get('payment-required') ?? '')
    expect(paymentRequired.resource).toMatchObject({
      url: 'https://api.example.test/v1/entity/check',
      serviceName: BAZAAR_SERVICE_NAME,
      tags: BAZAAR_TAGS,
    })
    const bazaar = paymentRequired.extensions?.bazaar as { info: { input: Record<string, unknown> } }
    expect(officialErrors(bazaar)).toEqual([])
    expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'POST', bodyType: 'json' })

    // What a facilitator catalogs from a payment that echoes the challenge (as x402 clients do).
    const discovered = extractDiscoveryInfo(
      {
        x402Version: 2,
        resource: paymentRequired.resource,
        accepted: paymentRequired.accepts[0]!,
        payload: {},
        extensions: paymentRequired.extensions,
      },
      paymentRequired.accepts[0]!,
    )
    expect(discovered).toMatchObject({
      resourceUrl: 'https://api.example.test/v1/entity/check',
      method: 'POST',
      serviceName: BAZAAR_SERVICE_NAME,
      tags: BAZAAR_TAGS,
      x402Version: 2,
    })
  })

  it('puts the full extension (output schema) and the v1 outputSchema in the 402 body', async () => {
    const response = await service.app.request('/v1/entity/check', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ entity_name: 'Acme Trading B.V.', country: 'NL' }),
    })
    const body = (await response.json()) as {
      x402Version: number
      resource: Record<string, unknown>
      accepts: { outputSchema: { input: Record<string, unknown> } }[]
      extensions: { bazaar: { schema: { properties: { output: { properties: { example: object } } } } } }
    }
    expect(body.x402Version).toBe(1)
    expect(body.resource).toMatchObject({ serviceName: BAZAAR_SERVICE_NAME, tags: BAZAAR_TAGS })
    expect(officialErrors(body.extensions.bazaar)).toEqual([])
    const entityCheck = describeOperation(operations.find((operation) => operation.id === 'entity_check')!)
    expect(body.extensions.bazaar.schema.properties.output.properties.example).toMatchObject({
      properties: entityCheck.output.properties,
    })
    for (const item of body.accepts) {
      expect(item.outputSchema.input).toMatchObject({ type: 'http', method: 'POST', discoverable: true })
    }
  })

  it('keeps every priced route’s PAYMENT-REQUIRED header within 8 KB, with a valid extension', async () => {
    const sizes: Record<string, number> = {}
    for (const description of priced) {
      const response = await unpaidRequest(service, description)
      expect(response.status, description.id).toBe(402)
      const header = response.headers.get('payment-required') ?? ''
      sizes[description.id] = header.length
      const bazaar = decodePaymentRequiredHeader(header).extensions?.bazaar
      expect(officialErrors(bazaar), description.id).toEqual([])
    }
    const largest = Math.max(...Object.values(sizes))
    console.info(`PAYMENT-REQUIRED header bytes per route (two networks): ${JSON.stringify(sizes)}`)
    expect(largest).toBeLessThanOrEqual(HEADER_LIMIT)
  })

  it('publishes the full extension per operation in /.well-known/x402.json', async () => {
    const document = (await (await service.app.request('/.well-known/x402.json')).json()) as {
      serviceName: string
      tags: string[]
      operations: {
        operation: string
        method?: string
        extensions?: { bazaar: { info: { input: object } } }
      }[]
    }
    expect(document).toMatchObject({ serviceName: BAZAAR_SERVICE_NAME, tags: BAZAAR_TAGS })
    const withBazaar = document.operations.filter((entry) => entry.extensions)
    expect(withBazaar.map((entry) => entry.operation).sort()).toEqual(Object.keys(PRICES).sort())
    for (const entry of withBazaar) {
      expect(officialErrors(entry.extensions?.bazaar), entry.operation).toEqual([])
      expect(entry.extensions?.bazaar.info.input).toMatchObject({ type: 'http', method: entry.method })
    }
  })

  it('puts the same discovery data in an MCP tool’s 402', async () => {
    const result = await service.mcp.call(
      { name: 'entity_check', arguments: { entity_name: 'Acme Trading B.V.', country: 'NL' } },
      undefined,
    )
    const paymentRequired = paymentRequiredOf<{
      resource: Record<string, unknown>
      extensions: { bazaar: unknown }
    }>(result)
    expect(paymentRequired?.resource).toMatchObject({ serviceName: BAZAAR_SERVICE_NAME })
    expect(officialErrors(paymentRequired?.extensions.bazaar)).toEqual([])
  })
})
