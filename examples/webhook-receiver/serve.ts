/**
 * A webhook receiver to run on a laptop next to a local service (docs/sanctions.md, "Try
 * webhooks on your laptop"): plain HTTP on 127.0.0.1, each delivery's signature checked against
 * WEBHOOK_SECRET before anything is parsed, one line printed per delivery.
 *
 *   WEBHOOK_SECRET=whsec_… RECEIVER_PORT=4000 node examples/webhook-receiver/serve.ts
 *
 * The service delivers to it only when started with WEBHOOKS_ALLOW_HTTP_LOOPBACK=true (a
 * development setting, refused in production). Stop it with Ctrl+C.
 */
import { startReceiver } from './receiver.ts'

const secret = process.env.WEBHOOK_SECRET ?? ''
if (!/^whsec_\S+$/.test(secret)) {
  console.error('set WEBHOOK_SECRET to the secret POST /v1/webhooks returned (whsec_…)')
  process.exit(2)
}
const requested = Number(process.env.RECEIVER_PORT ?? '4000')
if (!Number.isInteger(requested) || requested < 0 || requested > 65535) {
  console.error('RECEIVER_PORT must be a port number (0: any free port)')
  process.exit(2)
}

const { server, port } = await startReceiver({
  secret: () => secret,
  port: requested,
  onEvent: () => {},
  onOutcome: (outcome, event) => {
    const what = event ? `${event.event} ${event.event_id}` : 'a delivery'
    if (outcome === 'bad_signature') console.log('refused a delivery: signature missing or wrong (401)')
    else if (outcome === 'bad_body') console.log('refused a delivery: signed, but not an event (400)')
    else console.log(`verified ${what}: signature ok (${outcome})`)
  },
})
console.log(`receiver listening on http://127.0.0.1:${port}/hooks`)

const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
