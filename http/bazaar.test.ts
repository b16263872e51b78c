import {
  type DiscoveryExtension,
  extractDiscoveryInfoV1,
  sanitizeResourceServiceMetadata,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
} from '@x402/extensions/bazaar'
import { describe, expect, it } from 'vitest'
import { describeOperation } from '../core/discovery/describe-operation.ts'
import { PaymentRequiredError } from '../core/errors.ts'
import { operations } from '../core/operations/registry.ts'
import { encodeBase64Json } from '../core/payments/challenge.ts'
import {
  BAZAAR_RESOURCE_METADATA,
  type BazaarExtension,
  bazaarExtensionOf,
  bazaarExtensionsFor,
  bazaarV1OutputSchemaOf,
  PAYMENT_REQUIRED_HEADER_BUDGET,
  withBazaar,
} from './bazaar.ts'

/** Both validators of the official `@x402/extensions` package: info against its schema, and the spec's rules. */
function officialErrors(extension: BazaarExtension): string[] {
  const against = validateDiscoveryExtension(extension as unknown as DiscoveryExtension)
  const spec = validateDiscoveryExtensionSpec(extension)
  return [...(against.errors ?? []), ...(spec.errors ?? [])]
}

const priced = operations.map(describeOperation).filter((description) => description.prices !== null)

describe('x402 Bazaar discovery data', () => {
  it('covers every priced operation of the registry', () => {
    expect(priced.map((description) => description.id)).toEqual(
      expect.arrayContaining(['entity_check', 'sanctions_screen', 'leads_verify', 'wallet_balance']),
    )
  })

  it.each(priced.map((description) => [description.id, description] as const))(
    '%s: the full, compact and minimal extensions validate with the official validators',
    (_id, description) => {
      for (const detail of ['full', 'compact', 'minimal'] as const) {
        const extension = bazaarExtensionOf(description, { detail })
        expect(officialErrors(extension), `${detail}`).toEqual([])
        expect(extension.info.input).toMatchObject({ type: 'http', method: description.method })
      }
    },
  )

  it('declares a POST body with its JSON Schema and example, and the output schema in full detail only', () => {
    const description = describeOperation(operations.find((operation) => operation.id === 'entity_check')!)
    const full = bazaarExtensionOf(description)
    const input = full.info.input as Record<string, unknown>
    expect(input).toMatchObject({ type: 'http', method: 'POST', bodyType: 'json' })
    expect(input.body).toEqual(description.exampleInput)
    const inputSchema = (full.schema.properties as Record<string, { properties: Record<string, unknown> }>)
      .input!.properties
    expect(inputSchema.body).toMatchObject({ type: 'object', required: description.input.required })
    expect(Object.keys((inputSchema.body as { properties: object }).properties)).toEqual(
      Object.keys(description.input.properties as object),
    )
    expect(full.info.output).toEqual({ type: 'json', example: description.exampleOutput })
    const outputSchema = (full.schema.properties as Record<string, { properties: { example: object } }>)
      .output!
    expect(outputSchema.properties.example).toMatchObject({ properties: description.output.properties })
    const compact = bazaarExtensionOf(description, { detail: 'compact' })
    const compactOutput = (compact.schema.properties as Record<string, { properties: { example: object } }>)
      .output!
    expect(compactOutput.properties.example).toEqual({ type: 'object' })
    expect(full.routeTemplate).toBeUndefined()
  })

  it('declares query parameters of a GET route', () => {
    const description = describeOperation(operations.find((operation) => operation.id === 'wallet_balance')!)
    const extension = bazaarExtensionOf(description)
    expect(extension.info.input).toMatchObject({ type: 'http', method: 'GET' })
    expect(extension.info.input).not.toHaveProperty('body')
    const queryParams = (
      extension.schema.properties as Record<string, { properties: Record<string, object> }>
    ).input!.properties.queryParams
    expect(Object.keys((queryParams as { properties: object }).properties)).toEqual(
      description.placement.query,
    )
    // Without a mock answer the output schema is still declared, the example left out.
    expect(extension.info.output).toEqual({ type: 'json' })
    expect(officialErrors(extension)).toEqual([])
  })

  it('gives a route with path parameters its routeTemplate and the request path values', () => {
    const description = describeOperation(operations.find((operation) => operation.id === 'entity_check')!)
    const withPath = {
      ...description,
      path: '/v1/entities/{entity_id}/check',
      placement: { ...description.placement, path: ['entity_id'], body: description.placement.body },
      input: {
        ...description.input,
        properties: { ...(description.input.properties as object), entity_id: { type: 'string' } },
      },
    }
    const extension = bazaarExtensionOf(withPath, { path: '/v1/entities/acme-1/check' })
    expect(extension.routeTemplate).toBe('/v1/entities/:entity_id/check')
    expect(extension.info.input).toMatchObject({ pathParams: { entity_id: 'acme-1' } })
    expect(officialErrors(extension)).toEqual([])
  })

  it('builds a static route’s extensions once per detail, equal to a fresh build', () => {
    const description = describeOperation(
      operations.find((operation) => operation.id === 'sanctions_screen')!,
    )
    const extensions = bazaarExtensionsFor(description)
    expect(extensions('/v1/sanctions/screen')('compact')).toBe(extensions('/elsewhere')('compact'))
    expect(extensions('/v1/sanctions/screen')('full')).toEqual(bazaarExtensionOf(description))
  })

  it('fails the official validation when the example does not match the declared schema', () => {
    const description = describeOperation(operations.find((operation) => operation.id === 'entity_check')!)
    const extension = bazaarExtensionOf(description)
    const broken = {
      ...extension,
      info: { ...extension.info, input: { ...extension.info.input, body: { entity_name: 42 } } },
    }
    expect(officialErrors(broken).length).toBeGreaterThan(0)
  })

  it('names the service within the spec rules (serviceName, tags survive the official sanitizer)', () => {
    const sanitized = sanitizeResourceServiceMetadata({
      url: 'https://api.example.test',
      ...BAZAAR_RESOURCE_METADATA,
    })
    expect(sanitized).toEqual(BAZAAR_RESOURCE_METADATA)
  })

  it('gives x402 v1 clients the same input in accepts[].outputSchema, as the official v1 reader sees it', () => {
    for (const description of priced) {
      const extension = bazaarExtensionOf(description)
      const info = extractDiscoveryInfoV1({
        scheme: 'exact',
        network: 'base',
        maxAmountRequired: '1',
        resource: 'https://api.example.test/',
        description: '',
        mimeType: 'application/json',
        payTo: `0x${'11'.repeat(20)}`,
        maxTimeoutSeconds: 60,
        asset: `0x${'22'.repeat(20)}`,
        outputSchema: bazaarV1OutputSchemaOf(extension),
      } as never)
      const { pathParams: _path, ...input } = extension.info.input
      expect(info?.input, description.id).toEqual(input)
    }
  })

  describe('withBazaar', () => {
    const leads = describeOperation(operations.find((operation) => operation.id === 'leads_verify')!)
    /** A challenge with `networks` accepts items about the size the service renders (~900 bytes of JSON each). */
    const challenge = (networks: number) => {
      const item = { scheme: 'exact', network: 'eip155:8453', description: 'x'.repeat(800) }
      const view = (version: number) => ({
        x402Version: version,
        error: 'Payment required',
        resource: { url: 'https://api.example.test/v1/leads/verify' },
        accepts: Array.from({ length: networks }, () => item),
      })
      return new PaymentRequiredError({ paymentRequired: view(2), body: view(1) })
    }
    const headerOf = (error: PaymentRequiredError) =>
      error.paymentRequired as { extensions: { bazaar: BazaarExtension }; resource: object }

    it('puts the compact extension in the header and the full one in the body', () => {
      const error = withBazaar(challenge(1), (detail) => bazaarExtensionOf(leads, { detail }))
      expect(headerOf(error).extensions.bazaar).toEqual(bazaarExtensionOf(leads, { detail: 'compact' }))
      expect(headerOf(error).resource).toMatchObject(BAZAAR_RESOURCE_METADATA)
      const body = error.body as { extensions: { bazaar: BazaarExtension }; accepts: object[] }
      expect(body.extensions.bazaar).toEqual(bazaarExtensionOf(leads))
      expect(body.accepts[0]).toHaveProperty('outputSchema', bazaarV1OutputSchemaOf(bazaarExtensionOf(leads)))
    })

    it('gives a 402 that refuses a payment the header extension in the body too', () => {
      const refused = challenge(1)
      const rejection = new PaymentRequiredError({
        paymentRequired: { ...refused.paymentRequired, errorCode: 'insufficient_funds' },
        body: { ...refused.body, errorCode: 'insufficient_funds' },
      })
      const error = withBazaar(rejection, (detail) => bazaarExtensionOf(leads, { detail }))
      const body = error.body as { extensions: { bazaar: BazaarExtension } }
      expect(body.extensions.bazaar).toEqual(bazaarExtensionOf(leads, { detail: 'compact' }))
      expect(headerOf(error).extensions.bazaar).toEqual(body.extensions.bazaar)
    })

    it('falls back to the minimal extension when the compact one would pass the header budget', () => {
      const error = withBazaar(challenge(5), (detail) => bazaarExtensionOf(leads, { detail }))
      const bazaar = headerOf(error).extensions.bazaar
      expect(bazaar).toEqual(bazaarExtensionOf(leads, { detail: 'minimal' }))
      expect(officialErrors(bazaar)).toEqual([])
      expect(encodeBase64Json(error.paymentRequired).length).toBeLessThanOrEqual(
        PAYMENT_REQUIRED_HEADER_BUDGET,
      )
      // The compact one would not have fitted.
      const compact = {
        ...headerOf(error),
        extensions: { bazaar: bazaarExtensionOf(leads, { detail: 'compact' }) },
      }
      expect(encodeBase64Json(compact).length).toBeGreaterThan(PAYMENT_REQUIRED_HEADER_BUDGET)
    })
  })
})
