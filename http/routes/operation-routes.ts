import type { Context } from 'hono'
import { Hono } from 'hono'
import { describeOperation } from '../../core/discovery/describe-operation.ts'
import { PaymentRequiredError } from '../../core/errors.ts'
import {
  type AnyOperation,
  colonPath,
  type InvocationRequest,
  type InvocationResult,
  invokeOperation,
  type OperationRuntime,
} from '../../core/operations/index.ts'
import { bazaarExtensionsFor, withBazaar } from '../bazaar.ts'
import { settleOnDelivery } from '../delivery.ts'
import type { AppEnv } from '../env.ts'
import { answerReceiptHeaders, receiptHeaders } from '../payment-headers.ts'
import type { PdfRenderer } from '../pdf.ts'
import { problemResponse } from '../problem.ts'
import { rateLimitHeaders } from '../rate-limit-headers.ts'
import { clientAddress, paymentHeader, readJsonBody } from '../request.ts'

/** A registry path (`/v1/reports/{report_id}`) as a Hono route path (`/v1/reports/:report_id`). */
export function routePath(path: string): string {
  return colonPath(path)
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The operation's input from a request: the query string (GET, DELETE; empty values dropped) or
 * the JSON body (POST), with the path parameters on top, so the one input schema validates it all
 * and a 422 names the query or path parameter as sent.
 */
async function inputOf(c: Context<AppEnv>, operation: AnyOperation): Promise<unknown> {
  const params = c.req.param() as Record<string, string>
  if (operation.http.method !== 'POST') {
    const query = Object.fromEntries(Object.entries(c.req.query()).filter(([, value]) => value !== ''))
    return { ...query, ...params }
  }
  if (operation.http.noBody) return params
  // A POST on a resource (a path parameter) may come without a body when its body fields are all
  // optional (POST /v1/reports/{id}/share): the path alone is the input, and a bad path parameter
  // is a 422 naming it rather than "request body is required".
  const withPath = Object.keys(params).length > 0
  if (withPath && !hasBody(c)) return params
  const body = await readJsonBody(c)
  return isPlainObject(body) && withPath ? { ...body, ...params } : body
}

/** The request has a body: a non-zero Content-Length, a chunked one, or (in process) a body stream. */
function hasBody(c: Context<AppEnv>): boolean {
  const length = c.req.header('content-length')
  if (length !== undefined) return Number(length) > 0
  return c.req.header('transfer-encoding') !== undefined || c.req.raw.body !== null
}

/** The caller asked for HTML: `?format=html`, or an Accept header naming text/html before JSON. */
export function wantsHtml(c: Context<AppEnv>): boolean {
  if (c.req.query('format') === 'html') return true
  const accept = (c.req.header('accept') ?? '').toLowerCase()
  const htmlAt = accept.indexOf('text/html')
  if (htmlAt < 0) return false
  const jsonAt = accept.indexOf('application/json')
  return jsonAt < 0 || htmlAt < jsonAt
}

/** The caller asked for a PDF: `?format=pdf`, or an Accept header naming application/pdf first. */
export function wantsPdf(c: Context<AppEnv>): boolean {
  if (c.req.query('format') === 'pdf') return true
  const accept = (c.req.header('accept') ?? '').toLowerCase()
  return accept.startsWith('application/pdf')
}

/** The 503 of a PDF asked of a service without a renderer: nothing ran, nothing is charged. */
export function pdfNotConfigured(c: Context<AppEnv>): Response {
  return problemResponse(c, 503, 'PDF rendering not configured', {
    errorCode: 'pdf_not_configured',
    charged: false,
    operator_action: 'set CHROMIUM_PATH to a headless Chromium (Debian package chromium) and restart',
  })
}

/** A printable page as a PDF download (`report-<id>.pdf`), never cached by shared caches. */
export async function pdfResponse(c: Context<AppEnv>, pdf: PdfRenderer, html: string, name: string) {
  const bytes = await pdf.render(html)
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
    'Content-Type': 'application/pdf',
    'Content-Disposition': `inline; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf"`,
    'Cache-Control': 'private, no-store',
  })
}

/** Every registry operation as a REST route, all through the one pipeline (core/operations/invoke.ts). */
export function operationRoutes(
  runtime: OperationRuntime,
  operations: readonly AnyOperation[],
  options: { trustProxyHops?: number; pdf?: PdfRenderer } = {},
) {
  const app = new Hono<AppEnv>()
  for (const operation of operations) {
    const extensions = operation.price ? bazaarExtensionsFor(describeOperation(operation)) : undefined
    /** The route's 402 with its Bazaar discovery data (path parameters of this request). */
    const discoverable = (error: unknown, path: string) =>
      extensions && error instanceof PaymentRequiredError ? withBazaar(error, extensions(path)) : error
    app.on(operation.http.method, routePath(operation.http.path), async (c) => {
      const pdf = operation.http.html && wantsPdf(c)
      if (pdf && !options.pdf) return pdfNotConfigured(c)
      const request: InvocationRequest = {
        apiKey: c.req.header('x-api-key'),
        input: await inputOf(c, operation),
        quality: c.req.header('x-response-quality'),
        qualityField: 'X-Response-Quality',
        payment: paymentHeader(c),
        resourceUrl: c.req.url,
        requestId: c.get('requestId'),
        clientAddress: clientAddress(c, options.trustProxyHops),
        idempotencyKey: c.req.header('idempotency-key'),
        idempotencyKeyField: 'Idempotency-Key',
      }
      const result = await invokeOperation(runtime, operation, request).catch((error: unknown) => {
        throw discoverable(error, c.req.path)
      })
      let response: Response
      try {
        response =
          pdf && options.pdf && result.status === 200
            ? await pdfResponse(
                c,
                options.pdf,
                (operation.http.html as (output: unknown) => string)(result.output),
                `report-${c.req.param('report_id') ?? operation.id}`,
              )
            : answerResponse(c, operation, result)
      } catch (error) {
        await result.settle(false)
        throw error
      }
      // Charged once the answer was written whole; released when the connection closed first.
      await settleOnDelivery(c, result.settle)
      return response
    })
  }
  return app
}

/** The HTTP response of an answered call: receipt and rate-limit headers, then JSON (or HTML). */
function answerResponse(c: Context<AppEnv>, operation: AnyOperation, result: InvocationResult): Response {
  if (result.replayed) c.header('Idempotent-Replayed', 'true')
  for (const [name, value] of Object.entries(receiptHeaders(result.receipt))) c.header(name, value)
  if (result.answerReceipt) {
    for (const [name, value] of Object.entries(answerReceiptHeaders(result.answerReceipt)))
      c.header(name, value)
  }
  if (result.rateLimit) {
    for (const [name, value] of Object.entries(rateLimitHeaders(result.rateLimit))) c.header(name, value)
  }
  if (result.status === 204) return c.body(null, 204)
  const { bodyField, html } = operation.http
  if (html && result.status === 200 && wantsHtml(c)) {
    c.header('Cache-Control', 'private, no-store')
    return c.html((html as (output: unknown) => string)(result.output))
  }
  const output = result.output as Record<string, unknown>
  const nextCursor = operation.http.nextCursorField ? output[operation.http.nextCursorField] : undefined
  if (typeof nextCursor === 'string' && result.status === 200) {
    const next = new URL(c.req.url)
    next.searchParams.set('cursor', nextCursor)
    c.header('Link', `<${next.pathname}${next.search}>; rel="next"`)
  }
  return c.json((bodyField ? output[bodyField] : output) as object, result.status)
}
