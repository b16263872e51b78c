import { createServer, type Server } from 'node:https'
import type { Duplex } from 'node:stream'
import { verifySignature } from '../../../core/webhooks/signing.ts'
import { certificateFor, type FakeCertificateKind } from './fake-tls-server.ts'

/**
 * Test-only: an HTTPS webhook receiver on 127.0.0.1 with a certificate for `hooks.example.test`
 * issued by the test CA (or expired / self-signed). It records every request with its raw body
 * and signature header and answers what `respond` says (default 200).
 */
export interface ReceivedDelivery {
  body: string
  signature: string | null
  headers: Record<string, string | string[] | undefined>
  event: string | null
  eventId: string | null
  at: number
}

export interface FakeWebhookReceiver {
  readonly url: string
  readonly port: number
  readonly hostname: string
  /** PEM of the CA that issued the receiver's certificate (the test override trusts it). */
  readonly ca: string
  readonly received: ReceivedDelivery[]
  /** Distinct event ids received. */
  eventIds(): Set<string>
  /** How the receiver answers: a status, or `hang` (never answers), per request. */
  respond(answer: (delivery: ReceivedDelivery, index: number) => number | 'hang' | { redirect: string }): void
  /** Whether every received body verifies with `secret`. */
  allVerify(secret: string): boolean
  waitFor(count: number, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

export async function startFakeWebhookReceiver(
  options: { certificate?: FakeCertificateKind; path?: string } = {},
): Promise<FakeWebhookReceiver> {
  const hostname = 'hooks.example.test'
  const material = await certificateFor(options.certificate ?? 'valid', hostname)
  const received: ReceivedDelivery[] = []
  let answer: (delivery: ReceivedDelivery, index: number) => number | 'hang' | { redirect: string } = () =>
    200
  const sockets = new Set<Duplex>()
  const waiters: { count: number; resolve: () => void }[] = []

  const server: Server = createServer({ key: material.key, cert: material.cert }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let event: string | null = null
      let eventId: string | null = null
      try {
        const parsed = JSON.parse(body) as { event?: string; event_id?: string }
        event = parsed.event ?? null
        eventId = parsed.event_id ?? null
      } catch {}
      const signature = req.headers['x-service-signature']
      const delivery: ReceivedDelivery = {
        body,
        signature: typeof signature === 'string' ? signature : null,
        headers: req.headers,
        event,
        eventId,
        at: Date.now(),
      }
      received.push(delivery)
      for (const waiter of waiters.splice(0)) {
        if (received.length >= waiter.count) waiter.resolve()
        else waiters.push(waiter)
      }
      const reply = answer(delivery, received.length - 1)
      if (reply === 'hang') return
      if (typeof reply === 'object') {
        res.writeHead(302, { location: reply.redirect }).end()
        return
      }
      res.writeHead(reply, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('tlsClientError', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0

  return {
    url: `https://${hostname}:${port}${options.path ?? '/hooks/in'}`,
    port,
    hostname,
    ca: material.ca,
    received,
    eventIds: () =>
      new Set(received.map((delivery) => delivery.eventId).filter((id): id is string => id !== null)),
    respond(next) {
      answer = next
    },
    allVerify: (secret) =>
      received.every((delivery) => verifySignature(secret, delivery.body, delivery.signature)),
    waitFor(count, timeoutMs = 20_000) {
      if (received.length >= count) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${count} deliveries`)),
          timeoutMs,
        )
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer)
            resolve()
          },
        })
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
