import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveHttp } from '../../server/http-server.ts'
import type { AppEnv } from '../env.ts'
import { bodyLimit } from './body-limit.ts'

const LIMIT = 16

/** An app whose routes echo the body they read, behind a 16-byte limit that answers 413 with a text. */
function limitedApp() {
  return new Hono<AppEnv>()
    .use('*', bodyLimit({ maxSize: LIMIT, onError: (c) => c.text('too large', 413) }))
    .get('/get', (c) => c.text('get'))
    .post('/echo', async (c) => c.text(`read ${await c.req.text()}`))
}

/** A body sent without Content-Length (Transfer-Encoding: chunked). */
const chunked = (text: string) => ({
  body: new Blob([text]).stream(),
  duplex: 'half',
})

describe('bodyLimit on a Node socket', () => {
  let served: Awaited<ReturnType<typeof serveHttp>>
  let base: string

  beforeAll(async () => {
    served = await serveHttp(limitedApp().fetch, { port: 0, hostname: '127.0.0.1' })
    base = `http://127.0.0.1:${served.port}`
  })
  afterAll(async () => {
    await served?.close()
  })

  it('lets a GET through without reading anything', async () => {
    const response = await fetch(`${base}/get`)
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('get')
  })

  it('lets a body whose Content-Length is within the limit through, and the route reads it whole', async () => {
    const response = await fetch(`${base}/echo`, { method: 'POST', body: 'x'.repeat(LIMIT) })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(`read ${'x'.repeat(LIMIT)}`)
  })

  it('refuses a Content-Length over the limit with its error answer', async () => {
    const response = await fetch(`${base}/echo`, { method: 'POST', body: 'x'.repeat(LIMIT + 1) })
    expect(response.status).toBe(413)
    expect(await response.text()).toBe('too large')
  })

  it('counts a chunked body as it arrives: within the limit it is read, over it refused', async () => {
    const within = await fetch(`${base}/echo`, {
      method: 'POST',
      ...chunked('y'.repeat(LIMIT)),
    } as RequestInit)
    expect(within.status).toBe(200)
    expect(await within.text()).toBe(`read ${'y'.repeat(LIMIT)}`)
    const over = await fetch(`${base}/echo`, {
      method: 'POST',
      ...chunked('y'.repeat(LIMIT + 1)),
    } as RequestInit)
    expect(over.status).toBe(413)
    expect(await over.text()).toBe('too large')
  })
})

describe('bodyLimit in process (app.request)', () => {
  const app = limitedApp()

  it('reads and limits the body as hono/body-limit does', async () => {
    const within = await app.request('/echo', { method: 'POST', body: 'z'.repeat(LIMIT) })
    expect(await within.text()).toBe(`read ${'z'.repeat(LIMIT)}`)
    const over = await app.request('/echo', { method: 'POST', body: 'z'.repeat(LIMIT + 1) })
    expect(over.status).toBe(413)
    expect((await app.request('/get')).status).toBe(200)
  })
})
