import { randomUUID } from 'node:crypto'
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDeliveryJournal } from './delivery-journal.ts'

describe('delivery journal', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'deliveries-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('appends each delivery at once and keeps no file once every capture committed', () => {
    const journal = createDeliveryJournal({ dir, instanceId: 'a' })
    const [first, second] = [randomUUID(), randomUUID()]
    journal.delivered(first)
    journal.delivered(second)
    // Written before delivered() returned: another process reads it now.
    expect(readFileSync(path.join(dir, 'a.0.log'), 'utf8')).toBe(`${first}\n${second}\n`)
    journal.settled(first)
    expect(readdirSync(dir)).toEqual(['a.0.log'])
    journal.settled(second)
    expect(readdirSync(dir)).toEqual([])
    journal.delivered(first)
    expect(readdirSync(dir)).toEqual(['a.1.log'])
  })

  it('reads and forgets the files of another process, never its own', () => {
    const gone = createDeliveryJournal({ dir, instanceId: 'gone' })
    const ids = [randomUUID(), randomUUID()]
    for (const id of ids) gone.delivered(id)
    // A line cut short (a disk that filled up) and junk are skipped.
    appendFileSync(path.join(dir, 'gone.0.log'), `${randomUUID().slice(0, 20)}\nnot-an-id\n`)
    const next = createDeliveryJournal({ dir, instanceId: 'next' })
    expect(next.deliveredBy('gone')).toEqual(ids)
    expect(next.deliveredBy('other')).toEqual([])
    next.forget('next')
    expect(readdirSync(dir)).toEqual(['gone.0.log'])
    next.forget('gone')
    expect(readdirSync(dir)).toEqual([])
  })

  it('starts a new file every 10,000 lines and deletes a full one when its last capture commits', () => {
    const journal = createDeliveryJournal({ dir, instanceId: 'busy' })
    const ids = Array.from({ length: 10_001 }, () => randomUUID())
    for (const id of ids) journal.delivered(id)
    expect(readdirSync(dir).sort()).toEqual(['busy.0.log', 'busy.1.log'])
    for (const id of ids.slice(0, 9_999)) journal.settled(id)
    expect(readdirSync(dir).sort()).toEqual(['busy.0.log', 'busy.1.log'])
    journal.settled(ids[9_999]!)
    expect(readdirSync(dir)).toEqual(['busy.1.log'])
    expect(journal.deliveredBy('busy')).toEqual([ids[10_000]])
  })

  it('keeps the lines of captures still to be written when it closes', () => {
    const journal = createDeliveryJournal({ dir, instanceId: 'stopping' })
    const [captured, pending] = [randomUUID(), randomUUID()]
    journal.delivered(captured)
    journal.delivered(pending)
    journal.settled(captured)
    journal.close()
    journal.delivered(randomUUID())
    expect(createDeliveryJournal({ dir, instanceId: 'next' }).deliveredBy('stopping')).toEqual([
      captured,
      pending,
    ])
  })

  it('reports a folder it cannot write once and goes on', () => {
    const errors: unknown[] = []
    const file = path.join(dir, 'a-file')
    appendFileSync(file, '')
    const journal = createDeliveryJournal({
      dir: file,
      instanceId: 'x',
      onError: (error) => errors.push(error),
    })
    journal.delivered(randomUUID())
    journal.delivered(randomUUID())
    expect(errors).toHaveLength(1)
  })
})
