import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBusyGauge } from '../../test/support/fakes/fake-behaviour.ts'
import {
  type AllFakes,
  createSourcesForFakes,
  entityCheckFanOut,
  type FakeBackedSources,
  startAllFakes,
} from '../../test/support/fakes/start-all-fakes.ts'
import { createViesClient } from './vies.ts'

const NETWORK_SOURCES = 5 // kvk, vies, rdap, dns, tls (kbo is a local store)
const gauge = createBusyGauge()
let holding = false
let fakes: AllFakes
let sources: FakeBackedSources

beforeAll(async () => {
  // While `holding`, every fake keeps its answer until all five are busy at once (or 3 s pass).
  // A sequential fan-out can never make two fakes busy together, so it fails the assertion
  // below instead of passing slowly: nothing here measures time.
  let opened = false
  fakes = await startAllFakes({
    gauge,
    hold: async () => {
      if (!holding || opened) return
      await gauge.waitForBusy(NETWORK_SOURCES, 3000)
      opened = true
    },
  })
  sources = await createSourcesForFakes(fakes)
})
afterAll(async () => {
  await fakes.close()
})

describe('entity check fan-out against all fakes', () => {
  it('has every upstream busy at the same time and gets every answer', async () => {
    await sources.rdap.lookupDomain('example.com') // bootstrap cached, as in steady state
    gauge.reset()
    holding = true
    const results = await entityCheckFanOut(sources)
    holding = false
    expect(gauge.maxBusy).toBe(NETWORK_SOURCES)
    expect(Object.fromEntries(Object.entries(results).map(([k, r]) => [k, r.status]))).toEqual({
      kvk: 'ok',
      vies: 'ok',
      rdap: 'ok',
      dns: 'ok',
      tls: 'ok',
      kbo: 'ok',
    })
  })

  it('keeps the other answers when one upstream hangs', async () => {
    fakes.vies.behave({ mode: 'hang' })
    // Only VIES gets a short timeout: the others keep theirs, so a slow machine cannot time them out.
    const quickVies = createViesClient({ baseUrl: fakes.vies.url, timeoutMs: 300 })
    const results = await entityCheckFanOut({ ...sources, vies: quickVies })
    fakes.vies.behave({ mode: 'normal' })
    expect(results.vies).toMatchObject({ status: 'unavailable', reason: 'timeout' })
    expect(results.kvk).toMatchObject({ status: 'ok', data: { found: true } })
    expect(results.tls).toMatchObject({ status: 'ok', data: { ssl_valid: true } })
    expect(results.kbo).toMatchObject({
      status: 'ok',
      data: { name: 'Intergemeentelijke Vereniging Veneco' },
    })
  })
})
