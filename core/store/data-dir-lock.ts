/**
 * One owner per embedded data folder. PGlite is a single-process database: a second process that
 * opens the same folder (a second server, the operator CLI, a list import, the stdio MCP server)
 * corrupts the cluster under the first and hangs it, and PGlite leaves nothing that stops it (its
 * `postmaster.pid` holds a fixed fake pid). So the process that opens a folder first claims it with
 * a lock file, `<folder>/owner.lock`, created atomically (O_EXCL) and holding its pid, host, boot id
 * and process start time; the next opener reads it and refuses at once while that process lives.
 *
 * Liveness comes from the kernel, not from a heartbeat: a lock is stale when its process no longer
 * exists (kill -9, power loss), when the machine rebooted since (Linux boot id), or when its pid now
 * belongs to another process (Linux start time). A busy owner whose event loop is blocked for
 * minutes keeps its lock, which a heartbeat lock (mtime refreshed by a timer) would lose. A stale
 * lock is taken over under a second O_EXCL file, so two processes recovering it at once cannot
 * both win. A lock written on another host cannot be checked from here and is never taken over.
 */
import { mkdirSync, readFileSync, realpathSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** The lock file inside the data folder. */
export const LOCK_FILE = 'owner.lock'

/** What a lock file records about its owner. */
export interface LockOwner {
  pid: number
  hostname: string
  /** Linux: /proc/sys/kernel/random/boot_id (a reboot makes every older lock stale). */
  boot_id?: string
  /** Linux: the process start time in clock ticks since boot (a reused pid has another one). */
  start_ticks?: number
  started_at: string
  /** The command line, to tell the operator which program holds the folder. */
  command: string
}

/** A held claim on a data folder; release() gives it up (once). */
export interface DataDirLock {
  /** The folder's real path. */
  readonly dir: string
  release(): void
}

/** Another process (or this one, through another handle) owns the folder. */
export class DataDirInUseError extends Error {
  readonly dataDir: string
  readonly owner: LockOwner | undefined

  constructor(dataDir: string, owner: LockOwner | undefined, reason: string) {
    super(
      `DATA_DIR ${dataDir} is in use by ${reason}; stop it, or use another DATA_DIR, or PostgreSQL (DATABASE_URL) to share one database between processes`,
    )
    this.name = 'DataDirInUseError'
    this.dataDir = dataDir
    this.owner = owner
  }
}

/** Real paths of the folders this process holds, so a second open in-process is refused too. */
const held = new Map<string, string>()

function readBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
  } catch {
    return undefined
  }
}

/** Field 22 of /proc/<pid>/stat (starttime); the command name before it may hold spaces and ")". */
function startTicksOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[19])
    return Number.isSafeInteger(ticks) ? ticks : undefined
  } catch {
    return undefined
  }
}

function describeOwner(owner: LockOwner): string {
  return `process ${owner.pid}${owner.hostname === os.hostname() ? '' : ` on host ${owner.hostname}`} (${owner.command}, since ${owner.started_at})`
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>
    if (!Number.isSafeInteger(value.pid) || typeof value.hostname !== 'string') return undefined
    return value as LockOwner
  } catch {
    return undefined
  }
}

/**
 * Whether the recorded owner still runs. Unknown on another host: treated as alive (the operator
 * removes the file once that host is known to be done with the folder).
 */
function ownerAlive(owner: LockOwner): boolean {
  if (owner.hostname !== os.hostname()) return true
  const bootId = readBootId()
  if (owner.boot_id && bootId && owner.boot_id !== bootId) return false
  // Our own pid, but not in `held`: a lock left by an earlier process that had this pid (a
  // container's pid 1 after a restart).
  if (owner.pid === process.pid) return false
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    // EPERM: it exists, under another user.
  }
  if (owner.start_ticks !== undefined) {
    const ticks = startTicksOf(owner.pid)
    if (ticks !== undefined && ticks !== owner.start_ticks) return false
  }
  return true
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** Creates `file` with `text` only if it does not exist; false when it does. */
function createExclusive(file: string, text: string): boolean {
  try {
    writeFileSync(file, text, { flag: 'wx', mode: 0o644 })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

function removeIfUnchanged(file: string, text: string): void {
  if (readText(file) === text) unlinkSync(file)
}

/** A lock file with no readable owner older than this was left half-written by a killed process. */
const UNREADABLE_GRACE_MS = 2_000
/** A takeover file older than this belongs to a process killed while recovering (it takes microseconds). */
const TAKEOVER_STALE_MS = 10_000

function ageMs(file: string): number | undefined {
  try {
    return Date.now() - statSync(file).mtimeMs
  } catch {
    return undefined
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * Claims `dataDir` (which must exist) for this process, or throws DataDirInUseError naming the
 * owner, within about a second and without writing anything into a folder another process owns.
 * A stale lock (its process is gone) is taken over. Synchronous, so an entry point claims the
 * folder before it loads anything else. The claim is also dropped when the process exits.
 */
export function lockDataDir(dataDir: string, shownAs: string = dataDir): DataDirLock {
  const dir = realpathSync(dataDir)
  const file = path.join(dir, LOCK_FILE)
  const takeover = `${file}.takeover`
  if (held.has(dir)) {
    throw new DataDirInUseError(shownAs, undefined, `this process (pid ${process.pid}), opened twice`)
  }
  const bootId = readBootId()
  const startTicks = startTicksOf(process.pid)
  const owner: LockOwner = {
    pid: process.pid,
    hostname: os.hostname(),
    ...(bootId ? { boot_id: bootId } : {}),
    ...(startTicks !== undefined ? { start_ticks: startTicks } : {}),
    started_at: new Date().toISOString(),
    command: process.argv
      .slice(1)
      .map((arg) => path.relative(process.cwd(), arg) || arg)
      .join(' ')
      .slice(0, 200),
  }
  const text = `${JSON.stringify(owner)}\n`
  const deadline = Date.now() + 1_500
  for (;;) {
    if (createExclusive(file, text)) break
    const existing = readText(file)
    if (existing === undefined) continue // released between our two calls: try again
    const current = parseOwner(existing)
    if (current && ownerAlive(current)) throw new DataDirInUseError(shownAs, current, describeOwner(current))
    if (!current && (ageMs(file) ?? 0) < UNREADABLE_GRACE_MS) {
      // Being written this very moment by a process that just created it: look again shortly.
      if (Date.now() > deadline) throw new DataDirInUseError(shownAs, undefined, 'a process that is starting')
      sleepSync(20)
      continue
    }
    // Stale: take it over, one recovering process at a time, and only if it is still the same file.
    if (createExclusive(takeover, text)) {
      try {
        if (readText(file) === existing) unlinkSync(file)
      } finally {
        removeIfUnchanged(takeover, text)
      }
      continue
    }
    if ((ageMs(takeover) ?? 0) > TAKEOVER_STALE_MS) {
      const left = readText(takeover)
      if (left !== undefined) removeIfUnchanged(takeover, left)
      continue
    }
    if (Date.now() > deadline) {
      throw new DataDirInUseError(shownAs, undefined, 'another process recovering a stale lock')
    }
    sleepSync(20)
  }
  held.set(dir, text)
  let released = false
  const release = () => {
    if (released) return
    released = true
    held.delete(dir)
    process.off('exit', release)
    try {
      removeIfUnchanged(file, text)
    } catch {
      // Folder gone or unreadable: nothing left to release.
    }
  }
  process.on('exit', release)
  return { dir, release }
}

/**
 * The claim an entry point (server, operator CLI, list import, stdio MCP) takes first, from the
 * environment alone and before the rest of the program loads, so a second process on a running
 * service's folder refuses at once. None with DATABASE_URL: PostgreSQL is shared by design.
 * Creates the folder if it does not exist yet (a first start).
 */
export function claimDataDirFromEnv(env: NodeJS.ProcessEnv = process.env): DataDirLock | undefined {
  if (env.DATABASE_URL) return undefined
  // The same default as the configuration; an empty DATA_DIR is an in-memory database.
  const dataDir = env.DATA_DIR ?? './data'
  if (!dataDir) return undefined
  mkdirSync(dataDir, { recursive: true })
  return lockDataDir(dataDir)
}
