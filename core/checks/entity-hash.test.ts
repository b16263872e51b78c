import { describe, expect, it } from 'vitest'
import {
  entityCheckIdentity,
  entityHash,
  inputHash,
  nameIdentity,
  registrationIdentity,
} from './entity-hash.ts'

describe('entity hash', () => {
  it('names an entity by country and register number when one is given', () => {
    const byKvk = entityHash(
      entityCheckIdentity({ entity_name: 'Test BV Donald', country: 'NL', kvk_number: '68750110' }),
    )
    const sameNumberOtherName = entityHash(
      entityCheckIdentity({ entity_name: 'Donald', country: 'NL', kvk_number: '68750110' }),
    )
    expect(byKvk).toMatch(/^[0-9a-f]{64}$/)
    expect(sameNumberOtherName).toBe(byKvk)
    expect(entityHash(registrationIdentity('6875 0110', 'NL'))).toBe(byKvk)
  })

  it('treats a Belgian VAT number, a dotted and a bare CBE number as the same enterprise (Veneco)', () => {
    const dotted = entityHash(
      entityCheckIdentity({ entity_name: 'Veneco', country: 'BE', cbe_number: '0200.065.765' }),
    )
    const vat = entityHash(
      entityCheckIdentity({ entity_name: 'Veneco', country: 'BE', vat_number: 'BE0200065765' }),
    )
    expect(vat).toBe(dotted)
    expect(entityHash(registrationIdentity('0200065765', 'BE'))).toBe(dotted)
    expect(entityHash(registrationIdentity('BE 0200.065.765', 'BE'))).toBe(dotted)
  })

  it('falls back to the normalised name, so spelling of the legal form does not matter', () => {
    expect(entityHash(nameIdentity('Test B.V. Donald', 'NL'))).toBe(
      entityHash(nameIdentity('test bv  donald', 'NL')),
    )
    expect(entityHash(nameIdentity('Test BV Donald', 'NL'))).not.toBe(
      entityHash(nameIdentity('Test BV Donald', 'BE')),
    )
  })

  it('hashes inputs independent of key order and without undefined fields', () => {
    expect(inputHash('entity_check', { a: 1, b: 'x', c: undefined })).toBe(
      inputHash('entity_check', { b: 'x', a: 1 }),
    )
    expect(inputHash('entity_check', { a: 1 })).not.toBe(inputHash('risk_score', { a: 1 }))
  })
})
