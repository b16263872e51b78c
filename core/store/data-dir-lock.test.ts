import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { DataDirInUseError, LOCK_FILE, type LockOwner, lockDataDir } from './data-dir-lock.ts'

const folders: string[] = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

function folder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'data-dir-lock-'))
  folders.push(dir)
  return dir
}

function bootId(): string {
  return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
}

function startTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19])
}

/** A process that runs until killed. */
async function sleeper(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' })
  children.push(child)
  await once(child, 'spawn')
  return child.pid!
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await once(child, 'exit')
  return child.pid!
}

function writeLock(dir: string, owner: Partial<LockOwner>): string {
  const text = `${JSON.stringify({
    hostname: os.hostname(),
    boot_id: bootId(),
    started_at: '2026-11-25T10:00:00.000Z',
    command: 'npm start',
    ...owner,
  })}\n`
  writeFileSync(path.join(dir, LOCK_FILE), text)
  return text
}

const lockText = (dir: string) => readFileSync(path.join(dir, LOCK_FILE), 'utf8')

describe('one owner per data folder (owner.lock)', () => {
  it('claims a folder, refuses a second claim in the same process, and frees it on release', () => {
    const dir = folder()
    const lock = lockDataDir(dir)
    expect(JSON.parse(lockText(dir))).toMatchObject({ pid: process.pid, hostname: os.hostname() })
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError)
    expect(() => lockDataDir(dir, './data')).toThrow(
      `DATA_DIR ./data is in use by this process (pid ${process.pid}), opened twice`,
    )
    lock.release()
    lock.release()
    expect(() => readFileSync(path.join(dir, LOCK_FILE))).toThrow(/ENOENT/)
    lockDataDir(dir).release()
  })

  it('refuses while the recorded process lives, naming it, and leaves its lock as it was', async () => {
    const dir = folder()
    const pid = await sleeper()
    const text = writeLock(dir, { pid, start_ticks: startTicks(pid) })
    const error = (() => {
      try {
        lockDataDir(dir, './data')
      } catch (caught) {
        return caught as DataDirInUseError
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(DataDirInUseError)
    expect(error?.message).toBe(
      `DATA_DIR ./data is in use by process ${pid} (npm start, since 2026-11-25T10:00:00.000Z); stop it, or use another DATA_DIR, or PostgreSQL (DATABASE_URL) to share one database between processes`,
    )
    expect(error?.owner?.pid).toBe(pid)
    expect(lockText(dir)).toBe(text)
  })

  it('takes over a lock whose process is gone (kill -9), whose pid now runs another program, or from before a reboot', async () => {
    const live = await sleeper()
    for (const owner of [
      { pid: await deadPid() },
      { pid: live, start_ticks: startTicks(live) + 1 },
      { pid: live, start_ticks: startTicks(live), boot_id: '00000000-0000-0000-0000-000000000000' },
      // Our own pid but not held here: a lock from an earlier process that had this pid (a
      // container restarted with the service as pid 1 again), with or without its start time...
      { pid: process.pid },
      { pid: process.pid, start_ticks: startTicks(process.pid) - 1 },
      // ...or left by this very process (same start time) through a claim it no longer holds.
      { pid: process.pid, start_ticks: startTicks(process.pid) },
    ]) {
      const dir = folder()
      writeLock(dir, owner)
      const lock = lockDataDir(dir)
      expect(JSON.parse(lockText(dir)).pid, JSON.stringify(owner)).toBe(process.pid)
      lock.release()
    }
  })

  it('never takes over a lock written on another host, nor one being written right now', () => {
    const remote = folder()
    const text = writeLock(remote, { pid: 1, hostname: 'other-host.example' })
    expect(() => lockDataDir(remote)).toThrow(/in use by process 1 on host other-host.example/)
    expect(lockText(remote)).toBe(text)
    const starting = folder()
    writeFileSync(path.join(starting, LOCK_FILE), '')
    expect(() => lockDataDir(starting)).toThrow(/in use by a process that is starting/)
    // Empty and old: left by a process killed between creating and writing it.
    const old = new Date(Date.now() - 60_000)
    utimesSync(path.join(starting, LOCK_FILE), old, old)
    lockDataDir(starting).release()
  })

  it('a stale lock recovered by eight processes at once has exactly one new owner', async () => {
    const dir = folder()
    const go = path.join(folder(), 'go')
    writeLock(dir, { pid: await deadPid() })
    // Each process loads, says "ready", waits for the go file, then claims: a real race.
    const script = `
      import { existsSync } from 'node:fs'
      import { lockDataDir } from './core/store/data-dir-lock.ts'
      console.log('ready')
      while (!existsSync(process.env.GO)) await new Promise((resolve) => setTimeout(resolve, 2))
      try {
        lockDataDir(process.env.DIR)
        console.log('owner')
      } catch (error) {
        console.log(error.name)
      }
      setInterval(() => {}, 1e6)`
    const racers = Array.from({ length: 8 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, DIR: dir, GO: go },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      children.push(child)
      const lines: string[] = []
      const waiters: (() => void)[] = []
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        lines.push(...chunk.split('\n').filter(Boolean))
        for (const wake of waiters.splice(0)) wake()
      })
      const line = async (index: number) => {
        while (lines.length <= index) await new Promise<void>((resolve) => waiters.push(resolve))
        return lines[index]!
      }
      return { child, line }
    })
    expect(await Promise.all(racers.map((racer) => racer.line(0)))).toEqual(Array(8).fill('ready'))
    writeFileSync(go, '')
    const results = await Promise.all(racers.map((racer) => racer.line(1)))
    expect(results.filter((result) => result === 'owner')).toHaveLength(1)
    expect(results.filter((result) => result === 'DataDirInUseError')).toHaveLength(7)
    const owner = racers[results.indexOf('owner')]!.child
    expect(JSON.parse(lockText(dir)).pid).toBe(owner.pid)
    // Killed, the owner leaves its lock behind; the next claim recovers it.
    owner.kill('SIGKILL')
    await once(owner, 'exit')
    lockDataDir(dir).release()
  }, 120_000)
})
