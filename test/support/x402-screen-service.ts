import type { Service, ServiceOverrides } from '../../server/compose.ts'
import type { Config } from '../../server/config.ts'
import { type LocalPaymentSetup, localX402Env, startLocalPaymentSetup } from './chain/payment-fixtures.ts'
import { sanctionsDataPath, UN_FILES } from './sanctions/shared-data.ts'
import { createTestService, listen } from './service.ts'

/** A running service that takes x402 on a local chain, with its chain set-up and HTTP server. */
export interface X402ScreenService {
  setup: LocalPaymentSetup
  service: Service
  server: { baseUrl: string; close(): Promise<void> }
  close(): Promise<void>
}

/**
 * The x402 suites' service: PGlite, x402 taken in TestUSDC on a local EVM, the real UN list
 * (2026-02-27) loaded before it answers. OFAC and EU are configured but unreadable: their first
 * read fails, so a screen answers partial (charged) instead of a 503 for lists that are not
 * configured. `config` and `overrides` add to (or replace) these settings.
 */
export async function startX402ScreenService(
  config: Partial<Config> = {},
  overrides: ServiceOverrides = {},
): Promise<X402ScreenService> {
  const setup = await startLocalPaymentSetup()
  let service: Service | undefined
  try {
    service = await createTestService(
      'pglite',
      {
        SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
        SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/no-such-file.xml'),
        SANCTIONS_EU_SOURCE: sanctionsDataPath('eu/no-such-file.xml'),
        SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
        ...localX402Env(setup),
        ...config,
      },
      overrides,
    )
    await service.runtime.deps.sanctionsLists?.idle()
    const server = await listen(service)
    const started = service
    return {
      setup,
      service: started,
      server,
      close: async () => {
        await server.close()
        await started.close()
        await setup.stop()
      },
    }
  } catch (error) {
    await service?.close()
    await setup.stop()
    throw error
  }
}
