import { Hono } from 'hono'
import type { Clock } from '../../core/context.ts'
import { ServiceError } from '../../core/errors.ts'
import { badgeSvg, ENTITY_ID_PATTERN } from '../../core/reports/badge.ts'
import type { ReportSigner } from '../../core/reports/evidence.ts'
import { reportHtml } from '../../core/reports/report-html.ts'
import type { EntityReport } from '../../core/reports/report-schema.ts'
import { type ReportShares, SHARE_TOKEN, type ShareRefusal } from '../../core/reports/report-shares.ts'
import type { ReportStore } from '../../core/reports/report-store.ts'
import type { AppEnv } from '../env.ts'
import type { PdfRenderer } from '../pdf.ts'
import { problemResponse } from '../problem.ts'
import { pdfNotConfigured, pdfResponse, wantsHtml, wantsPdf } from './operation-routes.ts'

export interface ReportPublicRoutesOptions {
  signer: Pick<ReportSigner, 'publicJwk'>
  store: Pick<ReportStore, 'latestForEntity' | 'get'>
  /** Share links; without them a `?token=` request goes on to the keyed route. */
  shares?: Pick<ReportShares, 'open'>
  /** Renders the page as PDF for `format=pdf`; without it that is a 503. */
  pdf?: PdfRenderer
  clock: Clock
}

/** The problem of a token that does not open the report: 401 (not ours for it) or 410 (was, no longer). */
const REFUSALS: Readonly<Record<ShareRefusal, { status: 401 | 410; detail: string; errorCode: string }>> = {
  invalid: {
    status: 401,
    detail: 'this link is not valid for this report (altered, or made for another report)',
    errorCode: 'share_token_invalid',
  },
  expired: {
    status: 410,
    detail: 'this link has expired; ask the sender for a new one',
    errorCode: 'share_expired',
  },
  revoked: {
    status: 410,
    detail: 'this link was revoked; ask the sender for a new one',
    errorCode: 'share_revoked',
  },
}

/**
 * Public routes of the entity reports: the report signing key as a JWKS, the entity badge, and a
 * report opened by its share link (`GET /v1/reports/{id}?token=…`, no API key: JSON, the printable
 * page for a browser, or the PDF; 401 for a forged token, 410 for an expired or revoked one, and
 * never another report). A request without a token goes on to the keyed route. The badge is the same for every caller and discloses the trust level and
 * date of the newest report only; an id that is not an entity hash gets the "unknown" badge.
 */
export function reportPublicRoutes(options: ReportPublicRoutesOptions) {
  const jwks = { keys: [options.signer.publicJwk] }
  const shares = options.shares
  return new Hono<AppEnv>()
    .get('/v1/reports/:report_id', async (c, next) => {
      const token = c.req.query('token')
      if (token === undefined || !shares) return next()
      const reportId = c.req.param('report_id')
      // A token with characters no token has (a NUL, a space) is bad input, named like any field.
      const wellFormed = SHARE_TOKEN.safeParse(token)
      if (!wellFormed.success) {
        throw new ServiceError('validation_failed', 'invalid share token', {
          fields: [{ field: 'token', message: wellFormed.error.issues[0]?.message ?? 'invalid' }],
        })
      }
      const opened = await shares.open(reportId, token)
      if ('refused' in opened) {
        const refusal = REFUSALS[opened.refused]
        return problemResponse(c, refusal.status, refusal.detail, { errorCode: refusal.errorCode })
      }
      const stored = await options.store.get(opened.owner, reportId)
      if (!stored) return problemResponse(c, 410, REFUSALS.revoked.detail, { errorCode: 'share_revoked' })
      const report = stored.report as EntityReport
      // The link is the credential: never cached by anyone, never sent on as a Referer.
      c.header('Cache-Control', 'private, no-store')
      c.header('Referrer-Policy', 'no-referrer')
      c.header('X-Robots-Tag', 'noindex')
      if (wantsPdf(c)) {
        if (!options.pdf) return pdfNotConfigured(c)
        return pdfResponse(c, options.pdf, reportHtml(report), `report-${reportId}`)
      }
      if (wantsHtml(c)) {
        c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
        return c.html(reportHtml(report))
      }
      return c.json(report)
    })
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
