/**
 * A small webhook receiver for the service's signed deliveries (spec: Events):
 * 1. read the raw body bytes and check `X-Service-Signature` (bare hex HMAC-SHA256 of the raw
 *    body, keyed with the webhook secret) in constant time BEFORE parsing anything;
 * 2. de-duplicate by `event_id` (deliveries are at least once; a retry or replay repeats it);
 * 3. answer 2xx to every verified event, also to event types it does not know (rule 9).
 * Kept free of service imports, so it can be copied into any Node.js project.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer, type Server } from 'node:https'

export interface ReceivedEvent {
  event: string
  event_id: string
  created_at: string
  data: unknown
}

export type Outcome = 'processed' | 'duplicate' | 'ignored_unknown_event' | 'bad_signature' | 'bad_body'

/** Constant-time comparison of the received signature with the HMAC of the raw body. */
export function signatureValid(secret: string, rawBody: Buffer, signature: string | undefined): boolean {
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) return false
  const expected = createHmac('sha256', secret).update(rawBody).digest()
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'))
}

/**
 * Decides what to do with one delivery. `seen` holds processed event ids (use a database table
 * with a unique key in production so it survives restarts).
 */
export function handleDelivery(
  secret: string,
  rawBody: Buffer,
  signature: string | undefined,
  seen: Set<string>,
  onEvent: (event: ReceivedEvent, rawBody: Buffer) => void,
): { status: number; outcome: Outcome } {
  if (!signatureValid(secret, rawBody, signature)) return { status: 401, outcome: 'bad_signature' }
  let event: ReceivedEvent
  try {
    event = JSON.parse(rawBody.toString('utf8')) as ReceivedEvent
  } catch {
    return { status: 400, outcome: 'bad_body' }
  }
  if (typeof event.event_id !== 'string') return { status: 400, outcome: 'bad_body' }
  if (seen.has(event.event_id)) return { status: 200, outcome: 'duplicate' }
  seen.add(event.event_id)
  if (event.event !== 'sanctions.match.new') return { status: 202, outcome: 'ignored_unknown_event' }
  onEvent(event, rawBody)
  return { status: 200, outcome: 'processed' }
}

/**
 * A server running handleDelivery on every POST, on 127.0.0.1: HTTPS with `key` and `cert`, plain
 * HTTP without them (a laptop receiver, which the service admits only under
 * WEBHOOKS_ALLOW_HTTP_LOOPBACK=true).
 */
export function startReceiver(options: {
  secret: () => string
  key?: string
  cert?: string
  /** 0 (default): any free port. */
  port?: number
  onEvent: (event: ReceivedEvent, rawBody: Buffer) => void
  onOutcome?: (outcome: Outcome, event: ReceivedEvent | undefined) => void
}): Promise<{ server: Server | ReturnType<typeof createHttpServer>; port: number }> {
  const seen = new Set<string>()
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const signature = req.headers['x-service-signature']
      const raw = Buffer.concat(chunks)
      const { status, outcome } = handleDelivery(
        options.secret(),
        raw,
        typeof signature === 'string' ? signature : undefined,
        seen,
        options.onEvent,
      )
      options.onOutcome?.(
        outcome,
        outcome === 'bad_signature' || outcome === 'bad_body' ? undefined : parsed(raw),
      )
      res.writeHead(status, { 'content-type': 'text/plain' }).end(outcome)
    })
  }
  const server =
    options.key && options.cert
      ? createHttpsServer({ key: options.key, cert: options.cert }, handler)
      : createHttpServer(handler)
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const address = server.address()
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0 })
    })
  })
}

/** The event of a body already verified (for logging only). */
function parsed(raw: Buffer): ReceivedEvent | undefined {
  try {
    return JSON.parse(raw.toString('utf8')) as ReceivedEvent
  } catch {
    return undefined
  }
}
