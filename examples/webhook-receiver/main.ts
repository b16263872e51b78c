/**
 * Story: a compliance team watches a name, registers a webhook and receives a signed
 * `sanctions.match.new` event when the UN list changes: the two versions of the hand-made,
 * fictitious UN consolidated list in examples/lists/un (2025-12-01 -> 2026-01-15) differ by one
 * removed and one added entry, so the refresh is a real diff. The
 * receiver (receiver.ts) verifies the signature in constant time before parsing, de-duplicates
 * by event_id, and refuses replays with a wrong or missing signature. The service runs
 * in-process on an in-memory database; the receiver is a real HTTPS server on 127.0.0.1 whose
 * certificate a local test CA issued (admitted through the test-only override).
 * Exits non-zero if anything it shows does not hold.
 */

import assert from 'node:assert/strict'
import { createHmac, randomBytes } from 'node:crypto'
import { copyFileSync, mkdtempSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createDatabase } from '../../core/store/database.ts'
import { createService } from '../../server/compose.ts'
import { certificateFor } from '../../test/support/fakes/fake-tls-server.ts'
import { testConfig } from '../../test/support/test-config.ts'
import { type Outcome, type ReceivedEvent, startReceiver } from './receiver.ts'

const ADMIN = `svc_admin_${randomBytes(16).toString('hex')}`
/** The two versions of the fictitious UN list the example ships (examples/lists/un/<date>/). */
const unVersion = (date: '2025-12-01' | '2026-01-15') =>
  path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lists', 'un', date, 'un_consolidated.xml')
const listFile = path.join(mkdtempSync(path.join(tmpdir(), 'webhook-example-')), 'un.xml')
copyFileSync(unVersion('2025-12-01'), listFile)

const hostname = 'hooks.example.test'
const tls = await certificateFor('valid', hostname)
let secret = ''
const events: ReceivedEvent[] = []
const rawBodies: string[] = []
const outcomes: Outcome[] = []
const { server: receiver, port } = await startReceiver({
  secret: () => secret,
  key: tls.key,
  cert: tls.cert,
  onEvent: (event, raw) => {
    events.push(event)
    rawBodies.push(raw.toString('utf8'))
  },
  onOutcome: (outcome) => outcomes.push(outcome),
})

const service = await createService(
  testConfig({
    PORT: '0',
    ADMIN_API_KEY: ADMIN,
    SANCTIONS_UN_SOURCE: listFile,
    SANCTIONS_STARTUP_REFRESH_DELAY_MS: '3600000',
    WEBHOOK_SECRET_KEYS: randomBytes(32).toString('hex'),
    WEBHOOK_POLL_MS: '100',
  }),
  {
    database: await createDatabase(),
    log: () => {},
    webhookTestReceivers: { ca: tls.ca, hosts: { [hostname]: '127.0.0.1' } },
  },
)

async function call(method: string, route: string, key: string, body?: unknown) {
  const response = await service.app.request(route, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  // biome-ignore lint/suspicious/noExplicitAny: the example reads JSON answers field by field
  return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, any> }
}

/** Sends raw bytes to the receiver as the service would (or as an attacker replaying them). */
function post(body: string, signature: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        servername: hostname,
        ca: tls.ca,
        method: 'POST',
        path: '/hooks',
        headers: {
          'content-type': 'application/json',
          ...(signature ? { 'x-service-signature': signature } : {}),
        },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

try {
  assert.equal((await call('POST', '/v1/admin/sanctions/refresh', ADMIN)).status, 200)
  const key = (
    await call('POST', '/v1/admin/keys', ADMIN, {
      email: 'compliance@example.com',
      tier: 'pro',
      balance_usd: '5',
    })
  ).body.api_key as string

  // 1. Watch a name and register the receiver; the secret is shown once.
  const watched = await call('POST', '/v1/watchlist', key, { type: 'name', value: 'Testimir Examplov' })
  assert.equal(watched.body.screening.matches_today, true)
  const hook = await call('POST', '/v1/webhooks', key, {
    url: `https://${hostname}:${port}/hooks`,
    events: ['sanctions.match.new'],
  })
  assert.equal(hook.status, 201)
  secret = hook.body.secret

  // 2. The test delivery is signed with the real secret; its unknown event type still gets 2xx.
  const tested = await call('POST', `/v1/webhooks/${hook.body.webhook_id}/test`, key)
  assert.equal(tested.body.status_code, 202)

  // 3. The list changes: the watched entry is removed; the receiver gets one signed event.
  copyFileSync(unVersion('2026-01-15'), listFile)
  const refreshed = await call('POST', '/v1/admin/sanctions/refresh', ADMIN)
  // Three alerts: one list alert per changed entry (the removed one, the added one) and the
  // key's alert for its watched name.
  assert.equal(refreshed.body.alerts_created, 3)
  for (let waited = 0; events.length === 0 && waited < 15_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.equal(events.length, 1)
  const [event] = events
  assert.equal(event!.event, 'sanctions.match.new')
  const data = event!.data as { event_type: string; entry: { name: string }; match: { basis: string } }
  assert.equal(data.event_type, 'entry_removed')
  assert.equal(data.entry.name, 'TESTIMIR EXAMPLOV')
  assert.equal(data.match.basis, 'watchlist')
  console.log(`received ${event!.event} ${event!.event_id}: ${data.event_type} ${data.entry.name}`)

  // 4. Replays: the same signed body is acknowledged but not processed twice; a wrong or
  //    missing signature is refused before the body is parsed.
  const body = rawBodies[0]!
  const signature = createHmac('sha256', secret).update(body).digest('hex')
  assert.equal(await post(body, signature), 200)
  assert.equal(outcomes.at(-1), 'duplicate')
  assert.equal(await post(body, createHmac('sha256', 'whsec_wrong').update(body).digest('hex')), 401)
  assert.equal(await post(body, undefined), 401)
  assert.equal(await post(body.replace('entry_removed', 'entry_added'), signature), 401)
  assert.equal(events.length, 1)
  console.log('replay with a wrong or missing signature: refused (401); signed duplicate: acknowledged once')
} finally {
  await service.close()
  receiver.close()
}
