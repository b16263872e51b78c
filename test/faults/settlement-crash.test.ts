import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { sql } from 'drizzle-orm'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRICES } from '../../core/payments/pricing.ts'
import { createDatabase, type Database } from '../../core/store/database.ts'
import { createService, type Service } from '../../server/compose.ts'
import { signPaymentHeader } from '../support/chain/official-payer.ts'
import {
  type LocalPaymentSetup,
  localX402Env,
  startLocalPaymentSetup,
} from '../support/chain/payment-fixtures.ts'
import { testPostgresUrl } from '../support/database.ts'
import { paidRegistry } from '../support/paid-operations.ts'
import { startPaidServerChild, waitFor } from '../support/paid-server.ts'
import { testConfig } from '../support/test-config.ts'

const PRICE = PRICES.risk_score.x402.fresh

/**
 * Killing the server between verification and settlement, then restarting, leaves the ledger
 * consistent: the sweep resolves the row, and nothing is settled twice. Two processes share one
 * PostgreSQL, as they would in production.
 */
describe('a server killed mid-payment', { timeout: 90_000 }, () => {
  let setup: LocalPaymentSetup
  let databaseUrl: string
  let observer: Database
  let env: Record<string, string>
  const children: ChildProcess[] = []

  beforeAll(async () => {
    setup = await startLocalPaymentSetup({ fundedAmount: 50_000_000n })
    databaseUrl = await testPostgresUrl('crash')
    env = {
      DATABASE_URL: databaseUrl,
      ...localX402Env(setup),
      SETTLEMENT_RETRY_INTERVAL_MS: '200',
    }
    observer = await createDatabase({ url: databaseUrl, maxConnections: 2 })
  }, 120_000)

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL')
    await observer?.close()
    await setup?.stop()
  })

  async function startChild(): Promise<{ child: ChildProcess; url: string }> {
    const started = await startPaidServerChild(env)
    children.push(started.child)
    return started
  }

  /** A new process's composition root on the same database (its start-up sweep runs inside). */
  const restart = () => createService(testConfig(env), { operations: paidRegistry, log: () => {} })

  const signedHeader = (url: string, key: Hex) => signPaymentHeader(setup, url, key)

  async function ledgerRows(): Promise<{ status: string; phase: string; last_error: string | null }[]> {
    const result = (await observer.db.execute(
      sql`select status, phase, last_error from settlements order by created_at`,
    )) as unknown as { status: string; phase: string; last_error: string | null }[]
    return [...result]
  }

  const rpc = async (method: string, params: unknown[] = []) => {
    const response = await fetch(setup.chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return ((await response.json()) as { result?: unknown }).result
  }

  it('fails a payment whose operation never answered, and refuses the same payment afterwards', async () => {
    const { child, url } = await startChild()
    const header = await signedHeader(url, setup.payerKeys[0]!)
    const payerBefore = await setup.usdc.balanceOf(privateKeyToAccount(setup.payerKeys[0]!).address)
    const pending = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
      body: JSON.stringify({ text: 'slow', wait_ms: 60_000 }),
    }).catch((error: unknown) => error)
    await waitFor(
      async () => ((await ledgerRows()).some((row) => row.phase === 'reserved') ? true : undefined),
      'a reserved row',
    )
    child.kill('SIGKILL')
    await once(child, 'exit')
    expect(await pending).toBeInstanceOf(Error)

    // A new process starts on the same database: its start-up sweep resolves the orphan.
    const restarted: Service = await restart()
    try {
      await waitFor(async () => {
        const rows = await ledgerRows()
        return rows.every((row) => row.status !== 'PENDING') ? rows : undefined
      }, 'the sweep')
      expect(await ledgerRows()).toEqual([
        {
          status: 'FAILED',
          phase: 'done',
          last_error: 'interrupted before the operation answered; nothing delivered, nothing charged',
        },
      ])
      expect(await setup.usdc.balanceOf(privateKeyToAccount(setup.payerKeys[0]!).address)).toBe(payerBefore)
      const replay = await restarted.app.request('/v1/test/paid-echo', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
        body: JSON.stringify({ text: 'again' }),
      })
      expect(replay.status).toBe(402)
      expect(await replay.json()).toMatchObject({ errorCode: 'nonce_replay' })
    } finally {
      await restarted.close()
    }
  })

  it('settles exactly once when killed while its settlement transaction waits to be mined', async () => {
    await observer.db.execute(sql`delete from settlements`)
    const { child, url } = await startChild()
    const header = await signedHeader(url, setup.payerKeys[1]!)
    const payToBefore = await setup.usdc.balanceOf(setup.payTo)
    // Blocks are mined on demand only: a transaction sent now waits in the node's pool.
    await rpc('evm_setAutomine', [false])
    const pending = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
      body: JSON.stringify({ text: 'settling' }),
    }).catch((error: unknown) => error)
    await waitFor(
      async () => ((await ledgerRows()).some((row) => row.phase === 'settling') ? true : undefined),
      'a settling row',
    )
    // The settlement transaction has reached the node's pool before the process dies.
    await waitFor(async () => {
      const status = (await rpc('txpool_status')) as { pending?: string } | undefined
      return Number(status?.pending ?? 0) > 0 ? true : undefined
    }, 'the settlement transaction in the pool')
    child.kill('SIGKILL')
    await once(child, 'exit')
    await pending

    const restarted: Service = await restart()
    try {
      // Not mined yet and still within validBefore: the sweep leaves the row for later.
      expect(await ledgerRows()).toEqual([{ status: 'PENDING', phase: 'settling', last_error: null }])
      await rpc('evm_setAutomine', [true])
      await rpc('evm_mine')
      const rows = await waitFor(async () => {
        const current = await ledgerRows()
        return current[0]?.status === 'SETTLED' ? current : undefined
      }, 'the worker to see the mined transfer')
      expect(rows).toHaveLength(1)
      expect((await setup.usdc.balanceOf(setup.payTo)) - payToBefore).toBe(PRICE)
    } finally {
      await rpc('evm_setAutomine', [true])
      await restarted.close()
    }
  })
})
