import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  cbeNumberSchema,
  countrySchema,
  domainSchema,
  entityNameSchema,
  evmAddressSchema,
  ibanSchema,
  kvkNumberSchema,
  solanaAddressSchema,
  vatNumberSchema,
  walletAddressSchema,
  walletChainSchema,
} from './schemas.ts'

const EntityInput = z
  .object({
    entity_name: entityNameSchema,
    country: countrySchema,
    kvk_number: kvkNumberSchema.optional(),
    cbe_number: cbeNumberSchema.optional(),
    domain: domainSchema.optional(),
    iban: ibanSchema.optional(),
    vat_number: vatNumberSchema.optional(),
    wallet_address: walletAddressSchema.optional(),
    wallet_chain: walletChainSchema.optional(),
  })
  .strict()

describe('field schemas', () => {
  it('accept a fully valid entity-check input unchanged', () => {
    const input = {
      entity_name: 'Proximus NV',
      country: 'BE',
      cbe_number: '0202.239.951',
      domain: 'proximus.be',
      iban: 'BE68539007547034',
      vat_number: 'BE0202239951',
      wallet_address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045',
      wallet_chain: 'base',
    }
    expect(EntityInput.parse(input)).toEqual(input)
  })

  it('report one issue per bad field, with the validator message and path', () => {
    const result = EntityInput.safeParse({
      entity_name: 'X',
      country: 'nl',
      kvk_number: '1234 5678',
      iban: 'NL91 ABNA 0417 1643 00',
    })
    expect(result.success).toBe(false)
    const issues = result.error?.issues.map((i) => [i.path.join('.'), i.message]) ?? []
    expect(issues).toEqual([
      ['entity_name', 'must be at least 2 characters (not counting surrounding spaces)'],
      ['country', 'must be uppercase ISO 3166-1 alpha-2 (NL)'],
      ['kvk_number', 'must be 8 digits without spaces, dots or dashes'],
      ['iban', 'must be written without spaces (electronic format, e.g. NL91ABNA0417164300)'],
    ])
  })

  it('refuse non-strings and unknown wallet chains', () => {
    expect(countrySchema.safeParse(31).success).toBe(false)
    expect(walletChainSchema.safeParse('doge').success).toBe(false)
    expect(walletChainSchema.parse('sol')).toBe('sol')
  })

  it('convert to JSON Schema with descriptions, patterns and examples', () => {
    const json = z.toJSONSchema(EntityInput) as {
      properties: Record<string, Record<string, unknown>>
      additionalProperties: boolean
    }
    expect(json.additionalProperties).toBe(false)
    expect(json.properties.country).toMatchObject({ type: 'string', pattern: '^[A-Z]{2}$' })
    expect(json.properties.kvk_number?.description).toMatch(/8 digits/)
    expect(json.properties.entity_name).toMatchObject({ minLength: 2, maxLength: 255 })
    expect(json.properties.wallet_chain?.enum).toEqual(['eth', 'base', 'polygon', 'arbitrum', 'btc', 'sol'])
  })

  it('every documented example passes its own schema', () => {
    for (const schema of [
      countrySchema,
      entityNameSchema,
      kvkNumberSchema,
      cbeNumberSchema,
      ibanSchema,
      vatNumberSchema,
      walletAddressSchema,
      evmAddressSchema,
      solanaAddressSchema,
      domainSchema,
    ]) {
      const examples = (z.toJSONSchema(schema) as { examples?: string[] }).examples ?? []
      expect(examples.length).toBeGreaterThan(0)
      for (const example of examples) expect(schema.safeParse(example).success, example).toBe(true)
    }
  })

  it('declared patterns agree with the validators on their own examples', () => {
    for (const schema of [
      countrySchema,
      kvkNumberSchema,
      cbeNumberSchema,
      ibanSchema,
      evmAddressSchema,
      solanaAddressSchema,
    ]) {
      const json = z.toJSONSchema(schema) as { pattern?: string; examples?: string[] }
      const pattern = new RegExp(json.pattern ?? '')
      for (const example of json.examples ?? []) expect(pattern.test(example), example).toBe(true)
    }
  })
})
