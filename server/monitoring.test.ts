import { describe, expect, it } from 'vitest'
import { systemClock } from '../core/context.ts'
import type { Database } from '../core/store/database.ts'
import { createSecretBox } from '../core/webhooks/secret-box.ts'
import { testConfig } from '../test/support/test-config.ts'
import { buildMonitoring, webhookSecretBox } from './monitoring.ts'

describe('monitoring configuration', () => {
  it('refuses the test-only loopback receiver override when NODE_ENV=production', () => {
    const config = testConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEYS: 'a'.repeat(64) })
    expect(() =>
      buildMonitoring(config, {} as Database, systemClock, () => {}, createSecretBox([Buffer.alloc(32)]), {
        instanceId: 'x',
        testReceivers: { ca: 'pem' },
      }),
    ).toThrow(/tests only/)
  })

  it('refuses the loopback http development setting when NODE_ENV=production, even past loadConfig', () => {
    const config = testConfig({
      NODE_ENV: 'production',
      WEBHOOK_SECRET_KEYS: 'a'.repeat(64),
      WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true',
    })
    expect(() =>
      buildMonitoring(config, {} as Database, systemClock, () => {}, createSecretBox([Buffer.alloc(32)]), {
        instanceId: 'x',
      }),
    ).toThrow(/WEBHOOKS_ALLOW_HTTP_LOOPBACK: a development setting, refused when NODE_ENV=production/)
  })

  it('needs WEBHOOK_SECRET_KEYS in production and names a bad value at start-up', () => {
    expect(() => webhookSecretBox(testConfig({ NODE_ENV: 'production' }), true)).toThrow(
      /WEBHOOK_SECRET_KEYS: required/,
    )
    expect(() => testConfig({ WEBHOOK_SECRET_KEYS: 'too-short' })).toThrow(/WEBHOOK_SECRET_KEYS/)
    expect(() => testConfig({ WEBHOOK_CLAIM_LOCK_MS: '5000' })).toThrow(/WEBHOOK_CLAIM_LOCK_MS/)
    const rotated = testConfig({
      WEBHOOK_SECRET_KEYS: `${'b'.repeat(64)},${Buffer.alloc(32, 7).toString('base64')}`,
    })
    const box = webhookSecretBox(rotated, false)
    expect(box.open(box.currentKeyId, box.seal('whsec_1').sealed)).toBe('whsec_1')
  })
})
