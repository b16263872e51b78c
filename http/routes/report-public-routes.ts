import { Hono } from 'hono'
import type { Clock } from '../../core/context.ts'
import { badgeSvg, ENTITY_ID_PATTERN } from '../../core/reports/badge.ts'
import type { ReportSigner } from '../../core/reports/evidence.ts'
import type { ReportStore } from '../../core/reports/report-store.ts'
import type { AppEnv } from '../env.ts'

export interface ReportPublicRoutesOptions {
  signer: Pick<ReportSigner, 'publicJwk'>
  store: Pick<ReportStore, 'latestForEntity'>
  clock: Clock
}

/**
 * Public routes of the entity reports (never 401, 402 or 403): the report signing key as a JWKS,
 * and the entity badge. The badge is the same for every caller and discloses the trust level and
 * date of the newest report only; an id that is not an entity hash gets the "unknown" badge.
 */
export function reportPublicRoutes(options: ReportPublicRoutesOptions) {
  const jwks = { keys: [options.signer.publicJwk] }
  return new Hono<AppEnv>()
    .get('/.well-known/jwks.json', (c) => {
      c.header('Cache-Control', 'public, max-age=3600')
      return c.json(jwks)
    })
    .get('/v1/badge/:entity_id', async (c) => {
      const id = c.req
        .param('entity_id')
        .replace(/\.svg$/, '')
        .toLowerCase()
      const latest = ENTITY_ID_PATTERN.test(id) ? await options.store.latestForEntity(id) : null
      return c.body(badgeSvg(latest), 200, {
        'Content-Type': 'image/svg+xml; charset=utf-8',
        'Cache-Control': 'public, max-age=300',
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
      })
    })
}
