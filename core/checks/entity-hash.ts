import { createHash } from 'node:crypto'
import { normaliseCompanyName } from '../scoring/index.ts'
import { validateCbeNumber, validateVatNumber } from '../validate/index.ts'

/** What identifies an entity: its country and a register number, or else its normalised name. */
export interface EntityIdentity {
  country: string
  kind: 'kvk' | 'cbe' | 'registration' | 'name'
  id: string
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/**
 * The entity hash stored with every check and used by GET /v1/reputation/history/{entity_hash}:
 * sha256 of `country`, a newline, and `kind:id` (a register number when one was given, else
 * the normalised name). The same company checked by name and by number gets two hashes.
 */
export function entityHash(identity: EntityIdentity): string {
  return sha256(`${identity.country}\n${identity.kind}:${identity.id}`)
}

/** Identity of an entity check's input: KVK number, CBE number (or a BE VAT number), else the name. */
export function entityCheckIdentity(input: {
  entity_name: string
  country: string
  kvk_number?: string
  cbe_number?: string
  vat_number?: string
}): EntityIdentity {
  if (input.kvk_number) return { country: input.country, kind: 'kvk', id: input.kvk_number }
  const cbe = cbeOf(input.cbe_number, input.vat_number)
  if (cbe) return { country: input.country, kind: 'cbe', id: cbe }
  return nameIdentity(input.entity_name, input.country)
}

/** Identity from a name and a country (risk and reputation scores). */
export function nameIdentity(entityName: string, country: string): EntityIdentity {
  return { country, kind: 'name', id: normaliseCompanyName(entityName) }
}

/** Identity of a KYB input: the registration number, read as KVK (NL) or CBE (BE) when it is one. */
export function registrationIdentity(registrationNumber: string, country: string): EntityIdentity {
  const compact = registrationNumber.toUpperCase().replace(/[\s.\-/]/g, '')
  if (country === 'NL' && /^\d{8}$/.test(compact)) return { country, kind: 'kvk', id: compact }
  if (country === 'BE') {
    const cbe = cbeOf(compact.replace(/^BE/, '').padStart(10, '0'))
    if (cbe) return { country, kind: 'cbe', id: cbe }
  }
  return { country, kind: 'registration', id: compact }
}

/** The 10-digit CBE number from a CBE number or a Belgian VAT number (they are the same number). */
export function cbeOf(cbeNumber?: string, vatNumber?: string): string | null {
  if (cbeNumber) {
    const parsed = validateCbeNumber(cbeNumber)
    if (parsed.ok) return parsed.value
  }
  if (vatNumber) {
    const vat = validateVatNumber(vatNumber)
    if (vat.ok && vat.value.prefix === 'BE') return vat.value.number
  }
  return null
}

/**
 * Hash of the inputs that decide a result (the cached tier's key): operation plus the given
 * fields as canonical JSON (keys sorted, undefined dropped). Information-only fields are left
 * out by the caller.
 */
export function inputHash(operation: string, fields: Record<string, unknown>): string {
  return sha256(`${operation}\n${canonicalJson(fields)}`)
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}
