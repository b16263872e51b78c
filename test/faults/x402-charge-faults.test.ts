import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import { sql } from 'drizzle-orm'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRICES } from '../../core/payments/pricing.ts'
import { type Database, rowsOf } from '../../core/store/database.ts'
import { createService } from '../../server/compose.ts'
import { serveHttp } from '../../server/http-server.ts'
import { fetchChallenge, officialV2Client } from '../support/chain/official-payer.ts'
import {
  type LocalPaymentSetup,
  localX402Env,
  startLocalPaymentSetup,
} from '../support/chain/payment-fixtures.ts'
import { testPgliteDataDir, testPostgresUrl } from '../support/database.ts'
import { paidRegistry } from '../support/paid-operations.ts'
import { startPaidServerChild, waitFor } from '../support/paid-server.ts'
import { testConfig } from '../support/test-config.ts'

/**
 * Kill -9 under 400 concurrent x402 calls, restart, sweep. Half the calls
 * answer before the kill; the other half are verified (their ledger rows reserved) and still
 * running when the process dies. Afterwards, on chain, every payer paid exactly for the answers it
 * received, and the ledger says so: one SETTLED row per answer, the rest FAILED, none PENDING.
 */
const PRICE = PRICES.risk_score.x402.fresh
const CALLS = 400

describe('x402 charges under kill -9', { timeout: 240_000 }, () => {
  let setup: LocalPaymentSetup
  const children: ChildProcess[] = []
  const cleanups: (() => void)[] = []

  beforeAll(async () => {
    setup = await startLocalPaymentSetup({ fundedAmount: PRICE * BigInt(CALLS) })
  }, 120_000)

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL')
    for (const cleanup of cleanups) cleanup()
    await setup?.stop()
  })

  const payers = () => setup.payerKeys.map((key) => ({ key, address: privateKeyToAccount(key).address }))

  async function ledger(database: Database): Promise<Record<string, number>> {
    const rows = rowsOf<{ status: string; n: unknown }>(
      await database.db.execute(sql`select status, count(*)::int as n from settlements group by status`),
    )
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]))
  }

  async function killUnderLoad(env: Record<string, string>) {
    const fullEnv = { ...env, ...localX402Env(setup), SETTLEMENT_RETRY_INTERVAL_MS: '200' }
    const started = await startPaidServerChild(fullEnv)
    children.push(started.child)
    const { child, url } = started

    // One challenge, then 400 payments signed by the official client (each with its own nonce),
    // spread over the funded payers.
    const challenge = await fetchChallenge(url)
    const everyone = payers()
    const balancesBefore = await Promise.all(everyone.map((payer) => setup.usdc.balanceOf(payer.address)))
    const headers = await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const payer = everyone[i % everyone.length]!
        const payload = await officialV2Client(setup, payer.key).createPaymentPayload(challenge)
        return { payer: i % everyone.length, header: encodePaymentSignatureHeader(payload) }
      }),
    )
    const calls = headers.map(({ header }, i) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
        body: JSON.stringify(i % 2 === 0 ? { text: 'fast' } : { text: 'slow', wait_ms: 120_000 }),
      }).catch((error: unknown) => error as Error),
    )
    const answersPerPayer = everyone.map(() => 0n)
    await Promise.all(
      calls.map(async (pending, i) => {
        if (i % 2 === 1) return
        const response = await pending
        if (response instanceof Error || response.status !== 200) return
        const body = (await response.json()) as { echo?: unknown }
        if (body.echo === 'fast') answersPerPayer[headers[i]!.payer]! += 1n
      }),
    )
    const received = answersPerPayer.reduce((sum, n) => sum + n, 0n)
    expect(received).toBe(BigInt(CALLS / 2))
    child.kill('SIGKILL')
    await once(child, 'exit')
    const slow = await Promise.all(calls.filter((_, i) => i % 2 === 1))
    expect(slow.every((response) => response instanceof Error)).toBe(true)

    // A new process on the same database: its start-up sweep and worker resolve the orphans.
    const restarted = await createService(testConfig(fullEnv), {
      operations: paidRegistry,
      log: () => {},
    })
    // Observed through the new process's own connection (PGlite allows one process per folder).
    const database = restarted.database
    let stopServer: (() => Promise<void>) | undefined
    try {
      const rows = await waitFor(
        async () => {
          const counts = await ledger(database)
          return counts.PENDING ? undefined : counts
        },
        'the sweep to resolve every ledger row',
        60_000,
      )
      console.info(
        `x402 kill -9 (${env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}): ${CALLS} calls, ${received} answered; ledger ${JSON.stringify(rows)}`,
      )
      expect(rows.SETTLED).toBe(CALLS / 2)
      expect((rows.SETTLED ?? 0) + (rows.FAILED ?? 0)).toBeLessThanOrEqual(CALLS)
      // On chain: each payer paid exactly price x the answers it received.
      const balancesAfter = await Promise.all(everyone.map((payer) => setup.usdc.balanceOf(payer.address)))
      everyone.forEach((_, i) => {
        expect(balancesBefore[i]! - balancesAfter[i]!).toBe(PRICE * answersPerPayer[i]!)
      })
      // After the restart, a settled payment sent again for the same request gets the answer it
      // bought (kept on its ledger row), charged nothing; one whose call died unsettled is refused.
      const { port } = await serveHttp(restarted.app.fetch, { port: 0, hostname: '127.0.0.1' }).then(
        (served) => {
          stopServer = served.close
          return served
        },
      )
      const again = (i: number) =>
        fetch(`http://127.0.0.1:${port}${new URL(url).pathname}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': headers[i]!.header },
          body: JSON.stringify(i % 2 === 0 ? { text: 'fast' } : { text: 'slow', wait_ms: 120_000 }),
        })
      for (const i of [0, 2, 4, 6, 8]) {
        const replay = await again(i)
        expect(replay.status).toBe(200)
        expect(replay.headers.get('idempotent-replayed')).toBe('true')
        expect(((await replay.json()) as { echo: string }).echo).toBe('fast')
      }
      const unsettled = await again(1)
      expect(unsettled.status).toBe(402)
      expect(await unsettled.json()).toMatchObject({ errorCode: 'nonce_replay' })
      const balancesLast = await Promise.all(everyone.map((payer) => setup.usdc.balanceOf(payer.address)))
      expect(balancesLast).toEqual(balancesAfter)
    } finally {
      await stopServer?.()
      await restarted.close()
    }
  }

  it('on PostgreSQL: each payer paid exactly for the answers it received, every row resolved', async () => {
    const url = await testPostgresUrl('x402crash')
    await killUnderLoad({ DATABASE_URL: url })
  })

  it('on PGlite: each payer paid exactly for the answers it received, every row resolved', async () => {
    const { dataDir, remove } = await testPgliteDataDir('svc-x402crash-')
    cleanups.push(remove)
    await killUnderLoad({ DATA_DIR: dataDir })
  })
})
