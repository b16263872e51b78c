import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CompanyFakes, startCompanyFakes } from '../../test/support/company-fakes.ts'
import { type BusyGauge, createBusyGauge } from '../../test/support/fakes/index.ts'
import { systemClock } from '../context.ts'
import { runCompanyCheck } from './company-check.ts'

describe('runCompanyCheck fan-out', () => {
  let fakes: CompanyFakes
  let gauge: BusyGauge
  let holding = false

  beforeAll(async () => {
    gauge = createBusyGauge()
    // While holding, every fake keeps its first answer until all five upstreams are busy at
    // once (or 3 s pass): a sequential caller never gets there. Nothing here measures time.
    let opened = false
    fakes = await startCompanyFakes({
      gauge,
      hold: async () => {
        if (!holding || opened) return
        await gauge.waitForBusy(5, 3000)
        opened = true
      },
    })
    await fakes.sources.rdap?.lookupDomain('example.com') // bootstrap cached, as in steady state
  })
  afterAll(async () => {
    await fakes?.close()
  })

  it('asks KVK, VIES, RDAP, DNS and TLS at the same time', async () => {
    gauge.reset()
    holding = true
    const outcome = await runCompanyCheck(
      {
        entity_name: 'Test BV Donald',
        country: 'NL',
        kvk_number: '68750110',
        vat_number: 'NL857587973B01',
        domain: { host: 'example.com', registrable: 'example.com' },
        search_register_by_name: true,
        enhanced: false,
      },
      { sources: fakes.sources, sanctions: fakes.sanctions, clock: systemClock },
    )
    holding = false
    expect(gauge.maxBusy).toBe(5)
    expect(outcome.trust.sources.filter((s) => s.status === 'ok').map((s) => s.source)).toEqual(
      expect.arrayContaining(['kvk', 'vies', 'rdap', 'dns', 'tls', 'sanctions']),
    )
  })

  it('reports a source that is not configured as unavailable / not_configured, never skipped', async () => {
    const outcome = await runCompanyCheck(
      {
        entity_name: 'Test BV Donald',
        country: 'NL',
        kvk_number: '68750110',
        search_register_by_name: true,
        enhanced: false,
      },
      { sources: {}, clock: systemClock },
    )
    expect(outcome.trust.sources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'kvk', status: 'unavailable', reason: 'not_configured' }),
        expect.objectContaining({
          source: 'sanctions',
          status: 'unavailable',
          reason: 'sanctions_lists_not_loaded',
        }),
      ]),
    )
    expect(outcome.register_verified).toBe(false)
  })
})
