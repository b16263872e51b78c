/**
 * The paid-request benchmarks' common pieces: a facilitator on 127.0.0.1 that settles at once (so
 * a run measures the service's own x402 cost, not a chain's), payments signed before the clock
 * starts by the official client, and a warm-up round before each measured one.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { officialV2Client } from '../../test/support/chain/official-payer.ts'
import type { LocalPaymentSetup } from '../../test/support/chain/payment-fixtures.ts'
import { type HttpLoadFigures, type HttpLoadSpec, runHttpLoad } from '../../test/support/http-load.ts'

/** A facilitator on 127.0.0.1 that settles every payment at once with a made-up transaction hash. */
export async function instantFacilitator(): Promise<{ url: string; close(): void }> {
  let tx = 0
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      const parsed = JSON.parse(body) as { paymentPayload: { payload: { authorization: { from: string } } } }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          success: true,
          transaction: `0x${(++tx).toString(16).padStart(64, '0')}`,
          network: 'eip155:84532',
          payer: parsed.paymentPayload.payload.authorization.from,
        }),
      )
    })
  }).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}

/**
 * `count` PAYMENT-SIGNATURE header values for one 402 challenge, signed by the official client
 * with the set-up's payer keys in turn: each pays once, so a run never replays a payment.
 */
export async function signPayments(
  setup: LocalPaymentSetup,
  required: PaymentRequired,
  count: number,
): Promise<string[]> {
  const clients = setup.payerKeys.map((key) => officialV2Client(setup, key))
  const headers: string[] = []
  for (let i = 0; i < count; i++) {
    headers.push(
      encodePaymentSignatureHeader(await clients[i % clients.length]!.createPaymentPayload(required)),
    )
  }
  return headers
}

/** A 2 s round of the same load (connections and caches warm), then the measured round. */
export async function warmThenMeasure(spec: HttpLoadSpec): Promise<HttpLoadFigures> {
  await runHttpLoad({ ...spec, duration: 2 })
  return runHttpLoad(spec)
}
