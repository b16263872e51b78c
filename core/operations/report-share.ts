import { z } from 'zod'
import { ownerOf } from '../checks/index.ts'
import { ServiceError } from '../errors.ts'
import { DEFAULT_SHARE_SECONDS, MAX_SHARE_SECONDS } from '../reports/report-shares.ts'
import { defineOperation } from './define.ts'
import type { OperationContext } from './operation-context.ts'

const ReportId = z.string().min(1).max(100).describe('Id from POST /v1/reports/entity')

export const ReportShareInput = z
  .object({
    report_id: ReportId,
    expires_in_seconds: z
      .number()
      .int()
      .min(60)
      .max(MAX_SHARE_SECONDS)
      .default(DEFAULT_SHARE_SECONDS)
      .describe(
        `How long the link opens the report, in seconds: 60 to ${MAX_SHARE_SECONDS} (30 days); default ${DEFAULT_SHARE_SECONDS} (7 days)`,
      ),
  })
  .strict()

export const ReportShareOutput = z
  .object({
    share_id: z.string().describe('Id of the link, to revoke it (DELETE /v1/reports/shares/{share_id})'),
    url: z
      .string()
      .describe(
        'The link: GET /v1/reports/{report_id}?token=… opens this one report without an API key (a browser gets the printable page; add format=pdf for the PDF)',
      ),
    token: z.string().describe('The token alone (as in url)'),
    expires_at: z.string().describe('When the link stops opening the report (ISO timestamp)'),
  })
  .strict()

/** The calling key's owner and the report service; 503 when reports are not available here. */
function sharesOf(ctx: OperationContext<'reports'>) {
  const reports = ctx.deps.reports
  if (!reports?.shares)
    throw new ServiceError('unavailable', 'report share links are not available on this service', {
      extra: { errorCode: 'service_not_configured', charged: false },
    })
  const who = ownerOf(ctx.caller)
  if (!who) throw new ServiceError('unauthorized', 'an API key is required')
  return { reports, shares: reports.shares, owner: who.owner }
}

const notFound = (reportId: string) =>
  new ServiceError('not_found', `no report ${reportId}`, { extra: { errorCode: 'report_not_found' } })

export const reportShare = defineOperation({
  id: 'report_share',
  http: { method: 'POST', path: '/v1/reports/{report_id}/share', status: 201, problemInstance: true },
  title: 'Share a report',
  summary: 'A signed, expiring link that opens one report of this key without an API key (revocable)',
  description:
    "For a colleague or auditor without an API key: the link opens this one report (JSON, the printable page in a browser, or ?format=pdf) until it expires or is revoked; an expired or revoked link answers 410, a forged or altered one 401, and no link opens another report. The token is an HMAC-SHA256 over the report id, the link's id and its expiry with a key derived from the service's report signing key. Free; any other key's report is a 404.",
  input: ReportShareInput,
  output: ReportShareOutput,
  price: null,
  ports: ['reports'],
  access: { sandbox: 'run', tenant: true },
  run: async (input, ctx) => {
    const { reports, shares, owner } = sharesOf(ctx)
    if (!(await reports.store.get(owner, input.report_id))) throw notFound(input.report_id)
    const share = await shares.create(owner, input.report_id, input.expires_in_seconds)
    const base = reports.jwksUrl.replace(/\/\.well-known\/jwks\.json$/, '')
    return {
      share_id: share.share_id,
      url: `${base}/v1/reports/${encodeURIComponent(input.report_id)}?token=${share.token}`,
      token: share.token,
      expires_at: share.expires_at,
    }
  },
})

export const ReportShareRevokeInput = z
  .object({
    share_id: z.string().min(1).max(100).describe('share_id from POST /v1/reports/{report_id}/share'),
  })
  .strict()

export const reportShareRevoke = defineOperation({
  id: 'report_share_revoke',
  http: {
    method: 'DELETE',
    path: '/v1/reports/shares/{share_id}',
    status: 204,
    problemInstance: true,
  },
  title: 'Revoke a report link',
  summary: 'Closes a share link of a report of this key at once (it then answers 410)',
  input: ReportShareRevokeInput,
  output: z.object({ revoked: z.literal(true) }).strict(),
  price: null,
  ports: ['reports'],
  access: { sandbox: 'run', tenant: true },
  destructive: true,
  run: async (input, ctx) => {
    const { shares, owner } = sharesOf(ctx)
    if (!(await shares.revoke(owner, input.share_id))) {
      throw new ServiceError('not_found', `no report link ${input.share_id} of this key`, {
        extra: { errorCode: 'share_not_found' },
      })
    }
    return { revoked: true as const }
  },
})
