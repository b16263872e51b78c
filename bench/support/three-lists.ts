/**
 * The sanctions benchmarks' common set-up: the service reads the three full real lists (OFAC SDN
 * Advanced 2025-11-19, legacy EU, UN 2026-02-27) from files, as the official sources serve them,
 * and is screened with one mix of request bodies, so their figures compare.
 */
import { nameTokens } from '../../core/sanctions/name-normaliser.ts'
import type { Service } from '../../server/compose.ts'
import {
  decompressedSharedFile,
  EU_LEGACY_FILE,
  OFAC_ADVANCED,
  sanctionsDataPath,
  UN_FILES,
} from '../../test/support/sanctions/shared-data.ts'

/** The operator key every benchmark service starts with. */
export const BENCH_ADMIN_KEY = 'svc_admin_bench_0123456789abcdefghij'

/** Names on the full lists: the listed half of the screen bodies. */
export const LISTED_NAMES = ['Lazarus Group', 'GARANTEX EUROPE OU', 'KHAWA PANGA MANDRO', 'Semenov, Roman']

/**
 * The service settings of a sanctions benchmark: the operator key, any free port, the three full
 * lists read from files on the first start, and RATE_LIMITS=off (a benchmark measures its path,
 * not the limiter: bench/rate-limit.ts does). The OFAC .bz2 is decompressed beforehand (once per
 * machine, cached), so loading times the service's own reading, parsing and storing, not bzip2.
 */
export async function threeListEnv(): Promise<Record<string, string>> {
  return {
    ADMIN_API_KEY: BENCH_ADMIN_KEY,
    PORT: '0',
    SANCTIONS_OFAC_SOURCE: await decompressedSharedFile(OFAC_ADVANCED['2025-11-19']),
    SANCTIONS_EU_SOURCE: sanctionsDataPath(EU_LEGACY_FILE),
    SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
    SANCTIONS_STARTUP_REFRESH_DELAY_MS: '0',
    RATE_LIMITS: 'off',
  }
}

/** How the screen bodies ask: the matching mode, and whether listed names are also misspelled. */
export interface ScreenBodyOptions {
  /** Sent as `match` when given (no field: the exact default). */
  match?: 'exact' | 'fuzzy'
  /**
   * A third of the listed names with one letter left out (which only the fuzzy mode finds), a
   * third reversed, a third as listed; otherwise half reversed, half as listed.
   */
  misspelled?: boolean
}

/**
 * 200 POST /v1/sanctions/screen bodies: every other one a listed name (each of `listed` in turn,
 * written as `options` says), the others names on no list.
 */
export function screenBodies(
  listed: readonly string[] = LISTED_NAMES,
  options: ScreenBodyOptions = {},
): string[] {
  if (listed.length === 0) throw new Error('no listed name to screen')
  const match = options.match ? { match: options.match } : {}
  return Array.from({ length: 200 }, (_, i) => {
    if (i % 2 === 1) return JSON.stringify({ name: `Unlisted Trading Company ${i}`, country: 'NL', ...match })
    const name = listed[(i / 2) % listed.length]!
    const reversed = () => nameTokens(name).reverse().join(' ')
    const written = options.misspelled
      ? i % 6 === 0
        ? name
        : i % 6 === 2
          ? reversed()
          : name.replace(/[aeiou](?=[a-z]*$)/i, '')
      : i % 4 === 0
        ? name
        : reversed()
    return JSON.stringify({ name: written, ...match })
  })
}

/** The screen bodies for a service that loaded the lists in-process: its listed names only. */
export function screenBodiesOn(service: Service, options: ScreenBodyOptions = {}): string[] {
  const lists = service.runtime.deps.sanctionsLists!
  return screenBodies(
    LISTED_NAMES.filter((name) => lists.screenName(name).status === 'ok'),
    options,
  )
}

/** Creates a funded live key through the operator route of a running service. */
export async function createBenchKey(
  baseUrl: string,
  tier: string,
  balanceUsd: string,
  adminKey = BENCH_ADMIN_KEY,
): Promise<{ api_key: string; key_id: string }> {
  const created = await fetch(`${baseUrl}/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': adminKey },
    body: JSON.stringify({ email: 'bench@example.com', tier, balance_usd: balanceUsd }),
  })
  if (!created.ok) throw new Error(`creating the bench key answered ${created.status}`)
  return (await created.json()) as { api_key: string; key_id: string }
}
