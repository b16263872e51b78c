import { describe, expect, it } from 'vitest'
import { operations } from '../operations/index.ts'
import { exampleInputOf } from './example-input.ts'
import { exampleCurl, operationCatalog, priceText } from './operation-catalog.ts'

describe('operation catalog (the source of every discovery document)', () => {
  it.each(operations.map((operation) => [operation.id, operation] as const))(
    'gives %s an example input its own schema accepts',
    (_id, operation) => {
      const parsed = operation.input.safeParse(exampleInputOf(operation))
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true)
    },
  )

  it('lists every registry operation once, in registry order, with USD prices of paid ones', () => {
    const catalog = operationCatalog(operations)
    expect(catalog.map((entry) => entry.id)).toEqual(operations.map((operation) => operation.id))
    const screen = catalog.find((entry) => entry.id === 'sanctions_screen')
    expect(screen?.price).toEqual({
      x402: { fresh: '0.005000' },
      account: { fresh: '0.110000' },
      per_unit: false,
    })
    expect(priceText(screen?.price?.x402 ?? {})).toBe('0.005 USD')
    const entity = catalog.find((entry) => entry.id === 'entity_check')
    expect(priceText(entity?.price?.x402 ?? {})).toBe('0.11 (cached) / 0.20 (fresh) / 0.29 (enhanced) USD')
    expect(catalog.find((entry) => entry.id === 'keys_usage')?.price).toBeNull()
  })

  it('writes example calls with path parameters filled in, GET queries and POST bodies', () => {
    const catalog = operationCatalog(operations)
    const byId = (id: string) => catalog.find((entry) => entry.id === id)!
    expect(exampleCurl(byId('sanctions_screen'), 'https://api.example')).toBe(
      `curl -X POST 'https://api.example/v1/sanctions/screen' -H "X-API-Key: $SVC_API_KEY" -H 'Content-Type: application/json' -d '{"name":"Acme Trading B.V.","country":"NL"}'`,
    )
    expect(exampleCurl(byId('reputation_history'), 'https://api.example')).toBe(
      `curl 'https://api.example/v1/reputation/history/${'a'.repeat(64)}' -H "X-API-Key: $SVC_API_KEY"`,
    )
  })
})
