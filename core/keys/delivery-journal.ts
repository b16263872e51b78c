/**
 * The delivery journal: a local append-only file that says, the moment it is known, which key
 * debits belong to answers that were delivered, so that a process killed before their captures
 * reach the database is not left unpaid for them.
 *
 * A debit is captured once its answer's last byte was handed to the kernel (core/keys/reservations.ts).
 * The capture is a database write, milliseconds later; a process killed in between has delivered
 * an answer whose reservation the next sweep would release. The journal closes that window: in the
 * same synchronous step that learns of the delivery (inside the response's end() when the socket
 * took it whole, else its 'finish' event: http/delivery.ts), the reservation id is appended with
 * one write(2). The page cache
 * keeps what a killed process wrote, so the sweep that settles a dead process's reservations reads
 * its journal first and captures what it lists instead of releasing it. What is left is the few
 * microseconds between the kernel taking the bytes and the append, and a machine that loses its
 * page cache (power loss) rather than the process: then the answer is delivered free, never the
 * other way round.
 *
 * Files: `<dir>/<instance>.<segment>.log`, one reservation id per line. A segment is deleted once
 * every capture it lists has committed; a new one starts after 10,000 lines, so a busy process
 * never grows one file, and an idle process has none. Only the sweep of a dead instance reads or
 * deletes that instance's files, so processes of other databases sharing the folder are never
 * disturbed. Written by hand: it is one append per answer and a line count, which no logging or
 * queue library does with a synchronous append and per-line settlement.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import path from 'node:path'

export interface DeliveryJournal {
  /**
   * The answer under this reservation was delivered: appended now, synchronously. Never throws
   * (a journal that cannot be written is reported; the capture still goes to the database).
   */
  delivered(reservationId: string): void
  /** The reservation's capture committed (or it was released): its line is no longer needed. */
  settled(reservationId: string): void
  /** The reservation ids a process that is gone journaled as delivered (its files in this folder). */
  deliveredBy(instanceId: string): string[]
  /** Deletes a gone process's files, once its reservations were settled from them. */
  forget(instanceId: string): void
  /** Closes this process's journal; its files go when nothing they list is still to be captured. */
  close(): void
}

const SEGMENT_LINES = 10_000
const RESERVATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

interface Segment {
  file: string
  fd: number
  lines: number
  /** Lines whose capture has not committed yet. */
  open: number
}

export function createDeliveryJournal(options: {
  dir: string
  instanceId: string
  onError?: (error: unknown) => void
}): DeliveryJournal {
  const { dir, instanceId } = options
  const segmentOf = new Map<string, Segment>()
  let current: Segment | undefined
  let next = 0
  let failed = false
  let closed = false

  const report = (error: unknown) => {
    // Once: a folder that cannot be written fails every append the same way.
    if (failed) return
    failed = true
    options.onError?.(error)
  }

  function retire(segment: Segment): void {
    try {
      closeSync(segment.fd)
    } catch (error) {
      report(error)
    }
    try {
      unlinkSync(segment.file)
    } catch (error) {
      report(error)
    }
  }

  function openSegment(): Segment {
    mkdirSync(dir, { recursive: true })
    const file = path.join(dir, `${instanceId}.${next++}.log`)
    return { file, fd: openSync(file, 'a'), lines: 0, open: 0 }
  }

  const filesOf = (instance: string): string[] => {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return []
    }
    return names.filter((name) => name.startsWith(`${instance}.`) && name.endsWith('.log'))
  }

  return {
    delivered(reservationId) {
      if (closed) return
      try {
        // A full segment stays until its last capture commits (settled deletes it then); a
        // current segment always has a line still open (settled drops it when none is).
        if (!current || current.lines >= SEGMENT_LINES) current = openSegment()
        writeSync(current.fd, `${reservationId}\n`)
        current.lines++
        current.open++
        segmentOf.set(reservationId, current)
      } catch (error) {
        report(error)
      }
    },

    settled(reservationId) {
      const segment = segmentOf.get(reservationId)
      if (!segment) return
      segmentOf.delete(reservationId)
      segment.open--
      if (segment.open > 0) return
      // Nothing in it is still to be captured: an idle process keeps no file at all.
      retire(segment)
      if (segment === current) current = undefined
    },

    deliveredBy(instance) {
      const ids: string[] = []
      for (const name of filesOf(instance)) {
        let text: string
        try {
          text = readFileSync(path.join(dir, name), 'utf8')
        } catch (error) {
          report(error)
          continue
        }
        for (const line of text.split('\n')) if (RESERVATION_ID.test(line)) ids.push(line)
      }
      return ids
    },

    forget(instance) {
      if (instance === instanceId) return
      for (const name of filesOf(instance)) {
        try {
          unlinkSync(path.join(dir, name))
        } catch (error) {
          report(error)
        }
      }
    },

    close() {
      if (closed) return
      closed = true
      // Its lines are still open (captures that could not be written): the next sweep needs them.
      if (current) closeSync(current.fd)
      current = undefined
    },
  }
}
