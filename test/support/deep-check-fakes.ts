// Test-only: the deep check's sources wired to fakes of yente, CIR, GDELT and openapi.com Risk.
import type { DeepCheckSources } from '../../core/checks/index.ts'
import {
  createGdeltClient,
  createInsolvencyRegisterClient,
  createOpenapiRiskProvider,
  createYenteClient,
} from '../../core/sources/index.ts'
import {
  type FakeBehaviour,
  type FakeHttpServer,
  startFakeCirServer,
  startFakeGdeltServer,
  startFakeOpenapiRiskServer,
  startFakeYenteServer,
} from './fakes/index.ts'

export interface DeepCheckFakes {
  yente: FakeHttpServer
  cir: FakeHttpServer
  gdelt: FakeHttpServer
  risk: FakeHttpServer
  /** Every deep-check source, the credit provider included. */
  sources: DeepCheckSources
  /** Per fake: how long it takes to answer (realistic latency for the benchmark). */
  behaveAll(behaviour: Partial<FakeBehaviour>): void
  close(): Promise<void>
}

/** The four fakes with their adapters (breakers that never open, so fault tests stay independent). */
export async function startDeepCheckFakes(options: { timeoutMs?: number } = {}): Promise<DeepCheckFakes> {
  const [yente, cir, gdelt, risk] = await Promise.all([
    startFakeYenteServer({ apiKey: 'yente-key' }),
    startFakeCirServer(),
    startFakeGdeltServer(),
    startFakeOpenapiRiskServer(),
  ])
  const common = { timeoutMs: options.timeoutMs ?? 2000, breaker: { failureThreshold: 1_000_000 } }
  const sources: DeepCheckSources = {
    pep: createYenteClient({ ...common, baseUrl: yente.url, apiKey: 'yente-key' }),
    insolvency: createInsolvencyRegisterClient({
      ...common,
      url: cir.url,
      username: 'cir-user',
      password: 'cir-password',
    }),
    media: createGdeltClient({ ...common, url: `${gdelt.url}/api/v2/doc/doc` }),
    credit: createOpenapiRiskProvider({ ...common, baseUrl: risk.url, token: 'openapi-test-token' }),
  }
  const all = [yente, cir, gdelt, risk]
  return {
    yente,
    cir,
    gdelt,
    risk,
    sources,
    behaveAll: (behaviour) => {
      for (const fake of all) fake.behave(behaviour)
    },
    close: async () => {
      await Promise.all(all.map((fake) => fake.close()))
    },
  }
}
