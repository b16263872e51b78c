import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settleOnDelivery } from './delivery.ts'
import type { AppEnv } from './env.ts'

/** What each request's settle saw: the outcome, and whether its response had emitted 'finish' yet. */
const settled: { delivered: boolean; beforeFinish: boolean }[] = []

describe('settleOnDelivery on a Node server', () => {
  let server: ReturnType<typeof serve>
  let base: string
  beforeAll(async () => {
    const app = new Hono<AppEnv>()
    app.get('/answer', async (c) => {
      const outgoing = c.env!.outgoing!
      let finished = false
      outgoing.once('finish', () => {
        finished = true
      })
      await settleOnDelivery(c, async (delivered) => {
        settled.push({ delivered, beforeFinish: !finished })
      })
      return c.json({ answer: 'x'.repeat(Number(c.req.query('size'))) })
    })
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise((resolve) => server.once('listening', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise((resolve) => server.close(resolve)))

  it('settles an answer the socket took whole inside end(), before the finish event', async () => {
    settled.length = 0
    const response = await fetch(`${base}/answer?size=100`)
    expect((await response.json()) as unknown).toEqual({ answer: 'x'.repeat(100) })
    expect(settled).toEqual([{ delivered: true, beforeFinish: true }])
  })

  it('settles an answer larger than the send buffer once it was all written, once', async () => {
    settled.length = 0
    const response = await fetch(`${base}/answer?size=20000000`)
    expect(((await response.json()) as { answer: string }).answer).toHaveLength(20_000_000)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(settled).toEqual([{ delivered: true, beforeFinish: false }])
  })
})
