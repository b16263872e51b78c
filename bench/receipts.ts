/**
 * Receipts benchmark: `npm run bench:receipts -- [--db pglite|postgres]`
 *
 * One service with the three full lists (OFAC SDN Advanced 2025-11-19, legacy EU, UN 2026-02-27)
 * answers paid POST /v1/sanctions/screen calls (live key, large balance, half listed names) under
 * keep-alive load from autocannon in a SECOND process, in alternating rounds of the same length:
 * receipts on (every answer signed, X-Receipt sent, the receipt kept in the audit row), receipts
 * off (the audit row still written), and no evidence at all (neither receipts nor audit rows).
 * Prints one JSON line with requests per second per mode summed over its rounds, the ratios
 * on / off (target >= 0.9) and on / none, and the receipt count check: every call charged in a
 * receipts-on round has exactly one stored audit row with its receipt (none lost).
 * Env: DURATION_S (per round, default 6), ROUNDS (per mode, default 5), CONNECTIONS (default 10).
 */
import { sql } from 'drizzle-orm'
import { type AnswerEvidence, createAnswerEvidence } from '../core/evidence/answer-evidence.ts'
import { rowsOf } from '../core/store/database.ts'
import { createService } from '../server/compose.ts'
import { type HttpLoadFigures, runHttpLoad } from '../test/support/http-load.ts'
import { listen } from '../test/support/serve.ts'
import { testConfig } from '../test/support/test-config.ts'
import { benchDatabase } from './support/bench-database.ts'
import { createBenchKey, screenBodiesOn, threeListEnv } from './support/three-lists.ts'

const DURATION_S = Number(process.env.DURATION_S ?? 6)
const ROUNDS = Number(process.env.ROUNDS ?? 5)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10)

const round = (value: number, digits = 1) => Number(value.toFixed(digits))

type Mode = 'receipts_on' | 'receipts_off' | 'no_evidence'

async function main(): Promise<void> {
  const bench = await benchDatabase('receipts-bench-')
  const dbKind = bench.kind
  try {
    const config = testConfig(await threeListEnv())
    const database = await bench.open()
    const service = await createService(config, { database, log: () => {} })
    await service.runtime.deps.sanctionsLists!.idle()
    const withReceipts = service.runtime.evidence
    if (!withReceipts?.receiptsEnabled) throw new Error('the service signs no receipts')
    // The same evidence without receipts: the audit rows are still written.
    const reportsDeps = service.runtime.deps.reports!
    const withoutReceipts: AnswerEvidence = createAnswerEvidence({
      signer: reportsDeps.signer,
      jwksUrl: reportsDeps.jwksUrl,
      audit: service.audit,
      clock: service.runtime.clock,
      lists: () => service.runtime.deps.sanctionsLists!.loadedLists(),
      receipts: false,
    })
    const evidenceOf: Record<Mode, AnswerEvidence | undefined> = {
      receipts_on: withReceipts,
      receipts_off: withoutReceipts,
      no_evidence: undefined,
    }

    const server = await listen(service)
    const key = await createBenchKey(server.baseUrl, 'enterprise', '1000000')
    const bodies = screenBodiesOn(service)
    const load = (duration: number) =>
      runHttpLoad({
        duration,
        connections: CONNECTIONS,
        url: `${server.baseUrl}/v1/sanctions/screen`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key.api_key },
        bodies,
      })
    const receiptRows = async () =>
      Number(
        rowsOf<{ n: string }>(
          await database.db.execute(
            sql`select count(*)::text as n from audit_events where receipt_id is not null`,
          ),
        )[0]!.n,
      )
    const callCount = async () => (await service.runtime.keys.get(key.key_id))!.callCount

    service.runtime.evidence = withReceipts
    await load(2) // warm-up
    await new Promise((resolve) => setTimeout(resolve, 500))
    const totals: Record<Mode, { requests: number; seconds: number; non_2xx: number }> = {
      receipts_on: { requests: 0, seconds: 0, non_2xx: 0 },
      receipts_off: { requests: 0, seconds: 0, non_2xx: 0 },
      no_evidence: { requests: 0, seconds: 0, non_2xx: 0 },
    }
    const rounds: { mode: Mode; figures: HttpLoadFigures }[] = []
    let chargedWithReceipts = 0n
    const receiptsBefore = await receiptRows()
    const order: Mode[] = ['receipts_on', 'receipts_off', 'no_evidence']
    for (let i = 0; i < ROUNDS; i++) {
      // Rotate the order, so no mode always runs first or last in a round.
      for (let j = 0; j < order.length; j++) {
        const mode = order[(i + j) % order.length]!
        service.runtime.evidence = evidenceOf[mode]
        const calls = await callCount()
        const figures = await load(DURATION_S)
        // Settles (captures, audit rows) of the last answers finish before the mode changes.
        await service.runtime.deps.sanctionsLists!.idle()
        await new Promise((resolve) => setTimeout(resolve, 500))
        if (mode === 'receipts_on') chargedWithReceipts += (await callCount()) - calls
        totals[mode].requests += figures.requests_per_s * DURATION_S
        totals[mode].seconds += DURATION_S
        totals[mode].non_2xx += figures.non_2xx
        rounds.push({ mode, figures })
      }
    }
    const receiptsStored = (await receiptRows()) - receiptsBefore
    const verify = await service.audit.verify(`key:${key.key_id}`)
    await server.close()
    await service.close()
    const rps = (mode: Mode) => round(totals[mode].requests / totals[mode].seconds)
    console.log(
      JSON.stringify({
        command: `npm run bench:receipts -- --db ${dbKind}`,
        database: dbKind,
        connections: CONNECTIONS,
        round_s: DURATION_S,
        rounds_per_mode: ROUNDS,
        requests_per_s: {
          receipts_on: rps('receipts_on'),
          receipts_off: rps('receipts_off'),
          no_evidence: rps('no_evidence'),
        },
        ratio_receipts_on_off: round(rps('receipts_on') / rps('receipts_off'), 3),
        ratio_receipts_on_no_evidence: round(rps('receipts_on') / rps('no_evidence'), 3),
        non_2xx: {
          receipts_on: totals.receipts_on.non_2xx,
          receipts_off: totals.receipts_off.non_2xx,
          no_evidence: totals.no_evidence.non_2xx,
        },
        receipts: {
          charged_calls_with_receipts_on: Number(chargedWithReceipts),
          receipts_stored: receiptsStored,
          none_lost: BigInt(receiptsStored) === chargedWithReceipts,
        },
        audit_chain_verifies: verify.ok,
        audit_rows: verify.rows,
        rounds: rounds.map(({ mode, figures }) => ({ mode, requests_per_s: figures.requests_per_s })),
      }),
    )
  } finally {
    bench.cleanup()
  }
}

await main()
