import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../../test/support/database.ts'
import { createManualClock } from '../../../test/support/fakes/index.ts'
import { createApiKeyService } from '../../keys/api-keys.ts'
import type { Database } from '../../store/database.ts'
import { BASE_SEPOLIA, createPaymentConfig, findPaymentNetwork } from '../networks.ts'
import type { SettleResult } from '../settle-result.ts'
import { toStandardRequirement, type VerifiedPayment } from '../verify-result.ts'
import { createSettlementService } from './settle-and-retry.ts'
import { createSettlementLedger } from './settlement-ledger.ts'

const PAY_TO = '0x1111111111111111111111111111111111111111'
const PAYER = '0x2222222222222222222222222222222222222222'
const config = createPaymentConfig({ networks: [BASE_SEPOLIA], evmPayTo: PAY_TO })

function payment(validBefore: Date): VerifiedPayment {
  const network = findPaymentNetwork(config, BASE_SEPOLIA)
  if (!network) throw new Error('network missing')
  const requirement = {
    network,
    amount: 200_000n,
    resourceUrl: 'http://x/v1/risk/score',
    description: 'test',
    mimeType: 'application/json',
    maxTimeoutSeconds: 300,
  }
  const nonce = `0x${randomUUID().replace(/-/g, '').padEnd(64, '0')}` as const
  const standard = toStandardRequirement(requirement)
  return {
    isValid: true,
    paymentId: `${BASE_SEPOLIA}:${PAYER}:${nonce}`,
    kind: 'evm',
    network: BASE_SEPOLIA,
    payer: PAYER,
    amount: 200_000n,
    price: 200_000n,
    requirement,
    paymentPayload: {
      x402Version: 2,
      resource: { url: '', description: '', mimeType: '' },
      accepted: standard,
      payload: {},
    },
    paymentRequirements: standard,
    authorization: {
      from: PAYER,
      to: PAY_TO,
      value: 200_000n,
      validAfter: 0n,
      validBefore: BigInt(Math.floor(validBefore.getTime() / 1000)),
      nonce,
    },
    signature: '0x00',
    validBefore,
  }
}

/** A settler whose answers the test scripts, counting calls. */
function scriptedSettler(results: Partial<SettleResult>[]) {
  let calls = 0
  return {
    get calls() {
      return calls
    },
    settle: async () => {
      const scripted = results[Math.min(calls, results.length - 1)] ?? {}
      calls++
      return { success: true, network: BASE_SEPOLIA, payer: PAYER, transaction: '0xabc', ...scripted }
    },
  }
}

describe.each(DATABASE_KINDS)('settlement service on %s', (kind) => {
  let database: Database
  const clock = createManualClock(new Date('2026-11-24T00:00:00Z'))
  beforeAll(async () => {
    database = await openTestDatabase(kind)
  })
  afterAll(async () => {
    await database?.close()
  })

  const setup = (
    results: Partial<SettleResult>[],
    instanceId = randomUUID(),
    unconfirmed?: 'refuse' | 'serve',
    landed?: boolean,
  ) => {
    const ledger = createSettlementLedger({ db: database.db, clock, config, instanceId, maxAttempts: 2 })
    const settler = scriptedSettler(results)
    const service = createSettlementService({
      ledger,
      settler,
      clock,
      retryBaseMs: 1000,
      unconfirmed,
      ...(landed === undefined ? {} : { authorizationUsed: async () => landed }),
    })
    return { ledger, settler, service }
  }
  const soon = () => new Date(clock.now().getTime() + 240_000)

  it('settles a reserved row at once', async () => {
    const { ledger, service } = setup([{}])
    const paid = payment(soon())
    const id = await ledger.reserve(paid, 'risk_score', null)
    expect((await service.settleReserved(id, paid)).kind).toBe('settled')
    expect(await ledger.get(id)).toMatchObject({ status: 'SETTLED', transaction: '0xabc' })
    await expect(service.settleReserved(id, paid)).rejects.toThrow(/not reserved/)
  })

  it('defers a retryable failure, then settles it on the retry pass, once even when two passes race', async () => {
    const { ledger, settler, service } = setup([
      { success: false, retryable: true, errorReason: 'settlement_failed' },
      {},
    ])
    const paid = payment(soon())
    const id = await ledger.reserve(paid, 'risk_score', null)
    expect((await service.settleReserved(id, paid)).kind).toBe('deferred')
    expect(await ledger.get(id)).toMatchObject({ status: 'PENDING', phase: 'retrying' })
    clock.advance(1500)
    await Promise.all([service.retryDue(), service.retryDue()])
    expect(settler.calls).toBe(2)
    expect(await ledger.get(id)).toMatchObject({ status: 'SETTLED' })
  })

  it('refuses (FAILED, nothing to retry) a settlement that could not be started, unless the policy is serve', async () => {
    const notSent = {
      success: false,
      retryable: true,
      submitted: false,
      errorReason: 'facilitator_unavailable' as const,
    }
    const refusing = setup([notSent])
    const paid = payment(soon())
    const id = await refusing.ledger.reserve(paid, 'risk_score', null)
    expect((await refusing.service.settleReserved(id, paid)).kind).toBe('refused')
    expect(await refusing.ledger.get(id)).toMatchObject({ status: 'FAILED' })
    clock.advance(60_000)
    await refusing.service.retryDue()
    expect(refusing.settler.calls).toBe(1)

    const serving = setup([notSent], randomUUID(), 'serve')
    const served = payment(soon())
    const servedId = await serving.ledger.reserve(served, 'risk_score', null)
    expect((await serving.service.settleReserved(servedId, served)).kind).toBe('deferred')
    expect(await serving.ledger.get(servedId)).toMatchObject({ status: 'PENDING', phase: 'retrying' })
  })

  it('never refuses a settlement that may have gone out (submitted or unknown): it is deferred', async () => {
    const { ledger, service } = setup([
      { success: false, retryable: true, submitted: true, errorReason: 'settlement_timeout' },
    ])
    const paid = payment(soon())
    const id = await ledger.reserve(paid, 'risk_score', null)
    expect((await service.settleReserved(id, paid)).kind).toBe('deferred')
  })

  it('a deferred row whose retry finds its nonce used: SETTLED only when the chain shows its transfer to us', async () => {
    const replayed = [
      { success: false, retryable: true, submitted: true, errorReason: 'settlement_timeout' },
      { success: false, retryable: false, errorReason: 'nonce_replay', transaction: undefined },
    ] as Partial<SettleResult>[]
    const outcome = async (landed: boolean | undefined) => {
      const { ledger, service } = setup(replayed, randomUUID(), undefined, landed)
      const paid = payment(soon())
      const id = await ledger.reserve(paid, 'risk_score', null)
      expect((await service.settleReserved(id, paid)).kind).toBe('deferred')
      clock.advance(1500)
      await service.retryDue()
      return ledger.get(id)
    }
    // An earlier send went through: the transfer to payTo is on chain.
    expect(await outcome(true)).toMatchObject({ status: 'SETTLED' })
    // The payer cancelled the authorization (or it paid someone else): nothing was paid to us.
    expect(await outcome(false)).toMatchObject({
      status: 'FAILED',
      lastError: expect.stringContaining('not by a transfer of this payment to us'),
    })
    // The chain cannot tell: neither SETTLED nor FAILED, asked again later.
    expect(await outcome(undefined)).toMatchObject({ status: 'PENDING' })
  })

  it('fails a definitive refusal, and a retryable one whose authorization has expired', async () => {
    const refused = setup([{ success: false, errorReason: 'insufficient_funds' }])
    const first = payment(soon())
    const firstId = await refused.ledger.reserve(first, 'risk_score', null)
    expect((await refused.service.settleReserved(firstId, first)).kind).toBe('failed')
    expect(await refused.ledger.get(firstId)).toMatchObject({
      status: 'FAILED',
      lastError: 'insufficient_funds',
    })
    const late = setup([{ success: false, retryable: true }])
    const expired = payment(new Date(clock.now().getTime() - 1000))
    const lateId = await late.ledger.reserve(expired, 'risk_score', null)
    expect((await late.service.settleReserved(lateId, expired)).kind).toBe('failed')
  })

  it("sweeps a dead process's reserved row to FAILED and leaves a live one alone", async () => {
    const dead = setup([{}], `dead-${randomUUID()}`)
    const paid = payment(soon())
    const orphan = await dead.ledger.reserve(paid, 'risk_score', null)
    const live = setup([{}])
    const mine = await live.ledger.reserve(payment(soon()), 'risk_score', null)
    await live.service.sweep(async (instanceId) => !instanceId.startsWith('dead-'))
    expect(await live.ledger.get(orphan)).toMatchObject({ status: 'FAILED' })
    expect(await live.ledger.get(mine)).toMatchObject({ status: 'PENDING', phase: 'reserved' })
    expect(live.settler.calls).toBe(0)
  })

  it('never guesses the outcome of a settlement interrupted mid-way: unknown without an RPC, the chain decides with one', async () => {
    const dead = setup([{}], `dead-${randomUUID()}`)
    const expired = payment(new Date(clock.now().getTime() - 600_000))
    const orphan = await dead.ledger.reserve(expired, 'risk_score', null)
    await dead.ledger.beginAttempt(orphan, ['reserved'])
    const isAlive = async (instanceId: string) => !instanceId.startsWith('dead-')

    // No RPC: the facilitator may have settled it, so neither FAILED nor SETTLED.
    const blind = setup([{}])
    await blind.service.sweep(isAlive)
    expect(await blind.ledger.get(orphan)).toMatchObject({ status: 'PENDING', phase: 'unknown' })
    expect((await blind.ledger.summary()).unknown).toBeGreaterThanOrEqual(1)

    // With an RPC that shows the authorization used: SETTLED.
    const ledger = createSettlementLedger({ db: database.db, clock, config, instanceId: randomUUID() })
    const seeing = createSettlementService({
      ledger,
      settler: scriptedSettler([{}]),
      clock,
      authorizationUsed: async () => true,
    })
    await seeing.sweep(isAlive)
    expect(await ledger.get(orphan)).toMatchObject({ status: 'SETTLED', phase: 'done' })
  })

  async function topUpKey() {
    const keys = createApiKeyService({ db: database.db, clock })
    const { record } = await keys.create({ email: `topup-${randomUUID()}@example.com`, tier: 'free' })
    return { keys, keyId: record.id }
  }

  it('writes a settled top-up whose ledger write failed on the next retry pass, with its credit, once', async () => {
    const { keys, keyId } = await topUpKey()
    const ledger = createSettlementLedger({ db: database.db, clock, config, instanceId: randomUUID() })
    let failures = 1
    const flaky = {
      ...ledger,
      settled: async (id: string, result: SettleResult) => {
        if (failures-- > 0) throw new Error('connection lost')
        return ledger.settled(id, result)
      },
    }
    const service = createSettlementService({ ledger: flaky, settler: scriptedSettler([{}]), clock })
    const paid = payment(soon())
    const id = await ledger.reserve(paid, 'key_upgrade:pro', keyId)
    await ledger.beginAttempt(id, ['reserved'])
    const result = await service.settleOnce(paid)
    expect(await service.recordSettled(id, result)).toBe(false)
    expect(service.unrecordedCount()).toBe(1)
    expect((await keys.get(keyId))?.balanceMicros).toBe(0n)

    await service.retryDue()
    await service.retryDue()
    expect(service.unrecordedCount()).toBe(0)
    expect(await ledger.get(id)).toMatchObject({ status: 'SETTLED' })
    expect(await keys.get(keyId)).toMatchObject({ balanceMicros: paid.amount, tier: 'pro' })
  })

  it("sweeps a live process's row left settling too long: the chain decides, and a top-up is credited once", async () => {
    const { keys, keyId } = await topUpKey()
    const instanceId = randomUUID()
    const ledger = createSettlementLedger({ db: database.db, clock, config, instanceId })
    const service = createSettlementService({
      ledger,
      settler: scriptedSettler([{}]),
      clock,
      authorizationUsed: async () => true,
    })
    const paid = payment(new Date(clock.now().getTime() + 600_000))
    const id = await ledger.reserve(paid, 'key_upgrade:starter', keyId)
    await ledger.beginAttempt(id, ['reserved'])
    const everyoneAlive = async () => true
    await service.sweep(everyoneAlive)
    expect(await ledger.get(id)).toMatchObject({ status: 'PENDING', phase: 'settling' })

    clock.advance(5 * 60_000 + 1)
    await service.sweep(everyoneAlive)
    await service.sweep(everyoneAlive)
    expect(await ledger.get(id)).toMatchObject({ status: 'SETTLED', phase: 'done' })
    expect(await keys.get(keyId)).toMatchObject({ balanceMicros: paid.amount, tier: 'starter' })
  })

  it('a top-up never lowers the tier of a key already above it', async () => {
    const { keys, keyId } = await topUpKey()
    const ledger = createSettlementLedger({ db: database.db, clock, config, instanceId: randomUUID() })
    const service = createSettlementService({ ledger, settler: scriptedSettler([{}]), clock })
    for (const tier of ['pro', 'starter']) {
      const paid = payment(soon())
      const id = await ledger.reserve(paid, `key_upgrade:${tier}`, keyId)
      await ledger.beginAttempt(id, ['reserved'])
      expect(await service.recordSettled(id, await service.settleOnce(paid))).toBe(true)
    }
    expect(await keys.get(keyId)).toMatchObject({ balanceMicros: 400_000n, tier: 'pro' })
  })

  it('steps of concurrent calls share statements, and each call gets its own row and outcome', async () => {
    const { keys, keyId } = await topUpKey()
    const ledger = createSettlementLedger({ db: database.db, clock, config, instanceId: randomUUID() })
    const payments = Array.from({ length: 30 }, () => payment(soon()))
    // One top-up among plain rows: settled with its credit in a transaction of its own.
    const operations = payments.map((_, index) => (index === 7 ? 'key_upgrade:pro' : `op_${index}`))
    const ids = await Promise.all(
      payments.map((paid, index) => ledger.reserve(paid, operations[index]!, index === 7 ? keyId : null)),
    )
    expect(new Set(ids).size).toBe(30)
    const rows = await Promise.all(ids.map((id) => ledger.get(id)))
    for (const [index, row] of rows.entries())
      expect(row).toMatchObject({ status: 'PENDING', phase: 'reserved', operation: operations[index] })
    // The stored payment reads back as the one reserved (the retry worker settles from it).
    await ledger.beginAttempt(ids[3]!, ['reserved'])
    await ledger.retryLater(ids[3]!, 'facilitator_unavailable', 1, 0)
    const [due] = (await ledger.due(100)).filter((row) => row.id === ids[3])
    expect(due?.payment).toEqual(payments[3])

    // A row released meanwhile does not start; the same row twice in one batch starts once.
    await ledger.release(ids[5]!, 'operation failed')
    const begun = await Promise.all([
      ...ids.map((id) => ledger.beginAttempt(id, ['reserved'])),
      ledger.beginAttempt(ids[0]!, ['reserved']),
    ])
    expect(begun).toEqual([...ids.map((_, index) => index !== 3 && index !== 5), false])

    const settled = await Promise.all(
      ids.map((id, index) =>
        ledger.settled(id, {
          success: true,
          network: BASE_SEPOLIA,
          payer: PAYER,
          transaction: `0x${index}`,
          fallback: index % 2 === 0,
        }),
      ),
    )
    expect(settled).toEqual(ids.map((_, index) => index !== 3 && index !== 5))
    const after = await Promise.all(ids.map((id) => ledger.get(id)))
    after.forEach((row, index) => {
      if (index === 3) expect(row).toMatchObject({ status: 'PENDING', phase: 'retrying' })
      else if (index === 5) expect(row).toMatchObject({ status: 'FAILED', phase: 'released' })
      else
        expect(row).toMatchObject({
          status: 'SETTLED',
          phase: 'done',
          transaction: `0x${index}`,
          attempts: 1,
        })
    })
    expect(await keys.get(keyId)).toMatchObject({ balanceMicros: payments[7]!.amount, tier: 'pro' })

    await Promise.all(
      ids.map((id, index) =>
        ledger.keepAnswer(id, `request-${index}`, {
          status: 200,
          body: index === 9 ? null : `{"n":${index}}`,
        }),
      ),
    )
    const kept = await Promise.all(
      payments.map((paid, index) => ledger.answerFor(paid.paymentId, `request-${index}`)),
    )
    kept.forEach((answer, index) => {
      if (index === 5) expect(answer).toBeUndefined()
      else
        expect(answer).toMatchObject({
          answer: { status: 200, body: index === 9 ? null : `{"n":${index}}` },
          status: index === 3 ? 'PENDING' : 'SETTLED',
          fallback: index === 3 ? false : index % 2 === 0,
        })
    })
  })

  it('a payment reserved twice in one batch fails alone: the other rows of the batch are written', async () => {
    const ledger = createSettlementLedger({ db: database.db, clock, config, instanceId: randomUUID() })
    const payments = Array.from({ length: 5 }, () => payment(soon()))
    const outcomes = await Promise.allSettled([
      ...payments.map((paid) => ledger.reserve(paid, 'risk_score', null)),
      ledger.reserve(payments[2]!, 'risk_score', null),
    ])
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
    ])
    for (const outcome of outcomes.slice(0, 5)) {
      const id = (outcome as PromiseFulfilledResult<string>).value
      expect(await ledger.get(id)).toMatchObject({ status: 'PENDING', phase: 'reserved' })
    }
  })

  it('keeps the answer a settled payment bought for the same request only, and forgets it a day later', async () => {
    const { ledger, service } = setup([{}])
    const paid = payment(soon())
    const id = await ledger.reserve(paid, 'risk_score', null)
    await service.settleReserved(id, paid)
    await ledger.keepAnswer(id, 'request-a', { status: 200, body: '{"ok":true}' })
    expect(await ledger.answerFor(paid.paymentId, 'request-a')).toMatchObject({
      answer: { status: 200, body: '{"ok":true}' },
      status: 'SETTLED',
      amount: paid.amount,
      response: { success: true, transaction: '0xabc', payer: PAYER },
    })
    expect(await ledger.answerFor(paid.paymentId, 'request-b')).toBeUndefined()
    // A released payment (its call failed) keeps nothing to give back.
    const failed = payment(soon())
    const released = await ledger.reserve(failed, 'risk_score', null)
    await ledger.release(released, 'operation failed; nothing charged')
    await ledger.keepAnswer(released, 'request-a', { status: 200, body: '{}' })
    expect(await ledger.answerFor(failed.paymentId, 'request-a')).toBeUndefined()
    // Rows are stamped with the database's time; three days on, the kept answer is cleared.
    clock.set(new Date(Date.now() + 3 * 86_400_000))
    expect(await ledger.forgetAnswers(86_400_000)).toBeGreaterThanOrEqual(1)
    expect(await ledger.answerFor(paid.paymentId, 'request-a')).toBeUndefined()
  })
})
