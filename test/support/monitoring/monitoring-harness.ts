import { randomBytes } from 'node:crypto'
import type { Service } from '../../../server/compose.ts'
import type { Config } from '../../../server/config.ts'
import type { DatabaseKind } from '../database.ts'
import { type FakeWebhookReceiver, startFakeWebhookReceiver } from '../fakes/fake-webhook-receiver.ts'
import { createTestService, TEST_ADMIN_KEY } from '../service.ts'

/**
 * Test-only: a whole service with sanctions monitoring on, an HTTPS webhook receiver on
 * 127.0.0.1 admitted through the test override, and small helpers to call it as keys.
 */
/** A JSON answer of the service, read loosely by the tests. */
// biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies field by field
export type Json = any

export interface MonitoringHarness {
  service: Service
  receiver: FakeWebhookReceiver
  call(
    method: string,
    path: string,
    key?: string,
    body?: unknown,
  ): Promise<{ status: number; body: Json; headers: Headers }>
  createKey(tier: 'free' | 'starter' | 'pro' | 'enterprise', balanceUsd?: string): Promise<string>
  refresh(): Promise<Json>
  close(): Promise<void>
}

export async function startMonitoringHarness(
  kind: DatabaseKind,
  config: Partial<Config>,
): Promise<MonitoringHarness> {
  const receiver = await startFakeWebhookReceiver()
  const service = await createTestService(
    kind,
    {
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 3_600_000,
      WEBHOOK_SECRET_KEYS: randomBytes(32).toString('hex'),
      WEBHOOK_POLL_MS: 100,
      ...config,
    },
    { webhookTestReceivers: { ca: receiver.ca, hosts: { [receiver.hostname]: '127.0.0.1' } } },
  )
  const call: MonitoringHarness['call'] = async (method, path, key, body) => {
    const headers: Record<string, string> = {}
    if (key) headers['x-api-key'] = key
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await service.app.request(path, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers }
  }
  return {
    service,
    receiver,
    call,
    async createKey(tier, balanceUsd = '20') {
      const created = await call('POST', '/v1/admin/keys', TEST_ADMIN_KEY, {
        email: `${tier}-${randomBytes(3).toString('hex')}@example.com`,
        tier,
        balance_usd: balanceUsd,
      })
      if (created.status !== 201) throw new Error(`key not created: ${JSON.stringify(created.body)}`)
      return created.body.api_key as string
    },
    async refresh() {
      const refreshed = await call('POST', '/v1/admin/sanctions/refresh', TEST_ADMIN_KEY)
      if (refreshed.status !== 200) throw new Error(`refresh failed: ${JSON.stringify(refreshed.body)}`)
      return refreshed.body
    },
    async close() {
      await service.close()
      await receiver.close()
    },
  }
}
