import path from 'node:path'
import type { SanctionsNameScreen } from '../../core/checks/sanctions-name-screen.ts'
import type { Service, ServiceOverrides } from '../../server/compose.ts'
import type { Config } from '../../server/config.ts'
import { type CompanyFakes, type FakeSanctionsScreen, startCompanyFakes } from './company-fakes.ts'
import { type DeepCheckFakes, startDeepCheckFakes } from './deep-check-fakes.ts'
import { createTestService, listen, TEST_ADMIN_KEY } from './service.ts'

/** Git-ignored folder for what tests produce for people to look at (screenshots, PDF pages). */
export const ARTIFACTS = path.join(process.cwd(), 'test-artifacts')

/** KVK test company 68750110 (Test BV Donald), with a VAT number and a domain the fakes know. */
export const DONALD = {
  entity_name: 'Test BV Donald',
  country: 'NL',
  kvk_number: '68750110',
  vat_number: 'NL857587973B01',
  domain: 'example.com',
}

/** A running service whose entity reports read fakes only, with its HTTP server. */
export interface ReportService {
  companies: CompanyFakes
  deep: DeepCheckFakes
  service: Service
  server: { baseUrl: string; close(): Promise<void> }
  /** A funded live key (pro, 100 USD) made through the operator route. */
  createKey(email: string): Promise<string>
  close(): Promise<void>
}

/**
 * The report suites' service: PGlite, every source of an entity report (registers, VIES, domain,
 * the deep check's sources and the sanctions screen) on fakes at 127.0.0.1. `sanctions` may wrap
 * the fakes' screen (default: the screen as it is); `config` and `overrides` go to the service.
 */
export async function startReportService(
  options: {
    companies?: Parameters<typeof startCompanyFakes>[0]
    config?: Partial<Config>
    overrides?: ServiceOverrides
    sanctions?: (screen: FakeSanctionsScreen) => SanctionsNameScreen
  } = {},
): Promise<ReportService> {
  const [companies, deep] = await Promise.all([startCompanyFakes(options.companies), startDeepCheckFakes()])
  let service: Service | undefined
  try {
    service = await createTestService('pglite', options.config, options.overrides)
    service.runtime.deps.companySources = companies.sources
    service.runtime.deps.sanctions = options.sanctions?.(companies.sanctions) ?? companies.sanctions
    service.runtime.deps.deepCheck = deep.sources
    const server = await listen(service)
    const started = service
    return {
      companies,
      deep,
      service: started,
      server,
      async createKey(email) {
        const created = await fetch(`${server.baseUrl}/v1/admin/keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': TEST_ADMIN_KEY },
          body: JSON.stringify({ email, tier: 'pro', balance_usd: '100' }),
        })
        return ((await created.json()) as { api_key: string }).api_key
      },
      async close() {
        await server.close()
        await started.close()
        await Promise.all([companies.close(), deep.close()])
      },
    }
  } catch (error) {
    await service?.close()
    await Promise.all([companies.close(), deep.close()])
    throw error
  }
}
