import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../env.ts'
import { mcpGuard } from './mcp-guard.ts'

const app = new Hono<AppEnv>()
  .use('/mcp', mcpGuard({ allowedOrigins: ['https://agents.example.com', 'not a url'] }))
  .post('/mcp', (c) => c.json({ ok: true }))

const post = (headers: Record<string, string> = {}) => app.request('/mcp', { method: 'POST', headers })

describe('mcpGuard (stateless Streamable HTTP, DNS rebinding protection)', () => {
  it('answers GET and DELETE with 405 and Allow: POST, so clients do not reconnect to an empty stream', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await app.request('/mcp', { method })
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe('POST')
      expect(response.headers.get('content-type')).toBe('application/problem+json')
    }
  })

  it('lets requests without an Origin header through (non-browser agents)', async () => {
    expect((await post()).status).toBe(200)
  })

  it('allows configured and loopback origins', async () => {
    expect((await post({ origin: 'https://agents.example.com' })).status).toBe(200)
    expect((await post({ origin: 'http://localhost:6274' })).status).toBe(200)
    expect((await post({ origin: 'http://127.0.0.1:3000' })).status).toBe(200)
  })

  it('refuses any other origin with 403, including look-alikes and garbage', async () => {
    for (const origin of [
      'http://evil.example.com',
      'https://agents.example.com.evil.example',
      'http://agents.example.com',
      'null',
      'file://x',
    ]) {
      const response = await post({ origin })
      expect(response.status, origin).toBe(403)
    }
  })
})
