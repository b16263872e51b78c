import { type ChildProcess, spawn } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { OFFLINE_LISTS } from '../support/test-config.ts'
import { tsEntry } from '../support/ts-entry.ts'

/** A free port on 127.0.0.1 (taken, then released), for the receiver the webhook names. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** A child process with its output collected, and a wait for a line matching a pattern. */
function start(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const waiters: Array<() => void> = []
  const append = (chunk: Buffer) => {
    output += chunk.toString()
    for (const wake of waiters.splice(0)) wake()
  }
  child.stdout?.on('data', append)
  child.stderr?.on('data', append)
  child.once('exit', () => {
    for (const wake of waiters.splice(0)) wake()
  })
  return {
    child,
    output: () => output,
    /** Resolves with the first match in the output; rejects if the process exits first or after 60 s. */
    async waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
      const deadline = Date.now() + 60_000
      for (;;) {
        const match = output.match(pattern)
        if (match) return match
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${output}`)
        }
        if (Date.now() > deadline) throw new Error(`no ${pattern} after 60 s:\n${output}`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 1000)
        })
      }
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

describe('webhooks on a laptop: WEBHOOKS_ALLOW_HTTP_LOOPBACK=true and the example receiver', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {})
  })

  it('registers http://127.0.0.1:<port>, and the test delivery reaches the receiver signed and verified', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'webhooks-laptop-'))
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
    // 1. The service, as the docs start it (npm start runs server/main.ts), with the setting.
    const service = start(tsEntry('server/main.ts'), {
      ...OFFLINE_LISTS,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true',
    })
    cleanup.push(() => service.stop())
    const [, servicePort] = await service.waitFor(/"message":"listening","port":(\d+)/)
    const base = `http://127.0.0.1:${servicePort}`
    expect(service.output()).toMatch(
      /plain http receivers on 127\.0\.0\.1, localhost and \[::1\] are admitted/,
    )

    // 2. A sandbox key (webhooks are free and run for sandbox keys).
    const created = await fetch(`${base}/v1/keys/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'dev@example.com', tier: 'sandbox' }),
    })
    expect(created.status).toBe(201)
    const { api_key: key } = (await created.json()) as { api_key: string }
    const headers = { 'x-api-key': key, 'content-type': 'application/json' }

    // 3. Register the receiver's plain http URL; other private http hosts stay refused.
    const receiverPort = await freePort()
    const registered = await fetch(`${base}/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        url: `http://127.0.0.1:${receiverPort}/hooks`,
        events: ['sanctions.match.new'],
      }),
    })
    expect(registered.status).toBe(201)
    const hook = (await registered.json()) as { webhook_id: string; secret: string; url: string }
    expect(hook.url).toBe(`http://127.0.0.1:${receiverPort}/hooks`)
    expect(hook.secret).toMatch(/^whsec_/)
    const privateHost = await fetch(`${base}/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: 'http://10.0.0.1/hooks', events: ['sanctions.match.new'] }),
    })
    expect(privateHost.status).toBe(422)
    expect(JSON.stringify(await privateHost.json())).toContain('plain http is admitted only for 127.0.0.1')

    // 4. The example receiver with the secret.
    const receiver = start(tsEntry('examples/webhook-receiver/serve.ts'), {
      WEBHOOK_SECRET: hook.secret,
      RECEIVER_PORT: String(receiverPort),
    })
    cleanup.push(() => receiver.stop())
    await receiver.waitFor(/receiver listening on http:\/\/127\.0\.0\.1:\d+\/hooks/)

    // 5. The test delivery: signed, verified by the receiver (202: an event type it does not process).
    const tested = await fetch(`${base}/v1/webhooks/${hook.webhook_id}/test`, { method: 'POST', headers })
    expect(tested.status).toBe(200)
    const delivery = (await tested.json()) as {
      delivered: boolean
      status_code: number
      event_id: string
      error: string | null
    }
    expect(delivery).toMatchObject({ delivered: true, status_code: 202, error: null })
    const [line] = await receiver.waitFor(
      /verified webhook\.test (\S+): signature ok \(ignored_unknown_event\)/,
    )
    expect(line).toContain(delivery.event_id)

    // The receiver really checks: a body signed with another secret is refused.
    const body = JSON.stringify({ event: 'webhook.test', event_id: 'forged', created_at: '', data: {} })
    const forged = await fetch(`http://127.0.0.1:${receiverPort}/hooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-signature': createHmac('sha256', 'whsec_wrong').update(body).digest('hex'),
      },
      body,
    })
    expect(forged.status).toBe(401)
    await receiver.waitFor(/refused a delivery: signature missing or wrong \(401\)/)
  }, 120_000)
})
