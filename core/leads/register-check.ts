import { cbeOf } from '../checks/entity-hash.ts'
import { compareCompanyNames } from '../scoring/index.ts'
import { formatCbeNumber } from '../validate/index.ts'
import { notRequested } from './lead-checks.ts'
import type { LeadCheck, LeadFlagCode } from './lead-flags.ts'
import type { LeadLookups } from './lead-lookups.ts'
import type { Lead } from './lead-schemas.ts'

export interface RegisterOutcome {
  check: LeadCheck
  flags: { code: LeadFlagCode; message: string }[]
  /** Names the register holds, official name first. */
  names: string[]
  /** The enterprise number the register confirmed (BE), for the VAT ownership check. */
  cbe?: string
  missingNumber?: boolean
}

/**
 * The register check of a lead: NL by KVK number (or, without one, by name), BE by enterprise
 * number in the KBO open data (cbe_number, or the number inside a BE VAT number). Found, active
 * and, when a company name is given, carrying that name; a register that does not answer leaves
 * the company unverified.
 */
export async function registerCheck(lead: Lead, lookups: LeadLookups): Promise<RegisterOutcome> {
  const name = lead.company_name
  if (lead.country === 'NL') {
    const fields = ['kvk_number', ...(name ? ['company_name'] : [])]
    if (lead.kvk_number) {
      const result = await lookups.kvkLookup(lead.kvk_number)
      if (result.status === 'unavailable') return unavailableRegister('kvk', result.reason, fields)
      const c = result.data
      if (!c.found)
        return failed('kvk', fields, 'company_not_found', `KVK has no registration ${c.kvk_number}`)
      const names = [c.name, c.statutory_name, ...c.trade_names].filter((n): n is string => !!n)
      if (c.active === false)
        return failed(
          'kvk',
          fields,
          'company_dissolved',
          `KVK ${c.kvk_number} (${c.name ?? 'no name'}) ended on ${c.ended_on ?? 'an unknown date'}`,
          names,
        )
      return named('kvk', fields, `KVK ${c.kvk_number}: ${c.name ?? 'no name'}, active`, names, name)
    }
    if (name) {
      const result = await lookups.kvkSearch(name)
      if (result.status === 'unavailable') return unavailableRegister('kvk', result.reason, ['company_name'])
      const ranked = result.data.results.map((hit) => ({
        hit,
        verdict: compareCompanyNames(name, [hit.name]).verdict,
      }))
      const active = ranked.find((r) => r.verdict === 'match' && r.hit.active)
      if (active)
        return {
          check: {
            check: 'register',
            status: 'ok',
            source: 'kvk',
            reason: `KVK lists an active registration named "${active.hit.name}" (${active.hit.kvk_number}), found by name`,
            fields: ['company_name'],
          },
          flags: [],
          names: [active.hit.name],
        }
      const ended = ranked.find((r) => r.verdict === 'match')
      if (ended)
        return failed(
          'kvk',
          ['company_name'],
          'company_dissolved',
          `KVK lists "${ended.hit.name}" (${ended.hit.kvk_number}) only as an ended registration`,
          [ended.hit.name],
        )
      return failed('kvk', ['company_name'], 'company_not_found', `KVK finds no registration named "${name}"`)
    }
    return { check: notRequested('register', 'kvk', ['kvk_number', 'company_name']), flags: [], names: [] }
  }
  // BE: KBO open data, by enterprise number (cbe_number, or the number inside a BE VAT number)
  const cbe = cbeOf(lead.cbe_number, lead.vat_number)
  const fields = [lead.cbe_number ? 'cbe_number' : 'vat_number', ...(name ? ['company_name'] : [])]
  if (!cbe) {
    if (!name)
      return {
        check: notRequested('register', 'kbo', ['cbe_number', 'company_name']),
        flags: [],
        names: [],
      }
    return {
      check: {
        check: 'register',
        status: 'unavailable',
        source: 'kbo',
        reason: 'the KBO open data are looked up by enterprise number: send cbe_number or a BE vat_number',
        fields: ['company_name'],
      },
      flags: [],
      names: [],
      missingNumber: true,
    }
  }
  const result = await lookups.kboLookup(formatCbeNumber(cbe))
  if (result.status === 'unavailable') return unavailableRegister('kbo', result.reason, fields)
  const e = result.data
  if (!e.found)
    return failed('kbo', fields, 'company_not_found', `KBO has no enterprise ${e.enterprise_number}`)
  const names = [e.name, ...e.names.map((n) => n.name)].filter((n): n is string => !!n)
  const dataset = e.dataset.snapshot_date ? ` (open data of ${e.dataset.snapshot_date})` : ''
  if (e.status !== 'active')
    return {
      ...failed(
        'kbo',
        fields,
        'company_dissolved',
        `KBO ${e.enterprise_number} (${e.name ?? 'no name'}) is no longer active${dataset}`,
        names,
      ),
      cbe,
    }
  return {
    ...named(
      'kbo',
      fields,
      `KBO ${e.enterprise_number}: ${e.name ?? 'no name'}, active${dataset}`,
      names,
      name,
    ),
    cbe,
  }
}

function named(
  source: string,
  fields: string[],
  found: string,
  names: string[],
  given: string | undefined,
): RegisterOutcome {
  if (!given)
    return { check: { check: 'register', status: 'ok', source, reason: found, fields }, flags: [], names }
  const { verdict, best } = compareCompanyNames(given, names)
  if (verdict === 'mismatch')
    return failed(
      source,
      fields,
      'company_name_mismatch',
      `${found}; the register's names do not match "${given}"`,
      names,
    )
  const how = verdict === 'match' ? `name matches ("${best}")` : `name partly matches ("${best}")`
  return {
    check: { check: 'register', status: 'ok', source, reason: `${found}; ${how}`, fields },
    flags: [],
    names,
  }
}

function failed(
  source: string,
  fields: string[],
  code: LeadFlagCode,
  reason: string,
  names: string[] = [],
): RegisterOutcome {
  return {
    check: { check: 'register', status: 'failed', source, reason, fields },
    flags: [{ code, message: reason }],
    names,
  }
}

function unavailableRegister(source: string, reason: string, fields: string[]): RegisterOutcome {
  const register = source === 'kvk' ? 'KVK' : 'KBO'
  return {
    check: {
      check: 'register',
      status: 'unavailable',
      source,
      reason: `${register} did not answer (${reason}); the company is not verified`,
      fields,
    },
    flags: [],
    names: [],
  }
}
