/**
 * `npm run lists:import -- <folder> [--force]`: loads the OFAC, EU and UN list files found under
 * a folder (e.g. a copy of the official downloads) into the database, one new version per list
 * with its diff, with a progress bar. A file published before the version in use is refused
 * (exit 1) unless `--force`; forced, it is stored without a diff, so it raises no alert. For a machine that cannot download the official lists. With PGlite
 * the data folder is claimed first: while a service runs on it the import refuses at once and
 * changes nothing (stop the service, or let it refresh through POST /v1/admin/sanctions/refresh);
 * with PostgreSQL, running servers pick the new versions up at their next hourly pass (or restart
 * them).
 */
import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { ListKey, ListProgressEvent } from '../core/sanctions/index.ts'
import { claimDataDirFromEnv, DataDirInUseError } from '../core/store/data-dir-lock.ts'

const STEPS: Readonly<Record<ListProgressEvent['phase'], number>> = {
  download: 0,
  parse: 1,
  store: 2,
  done: 3,
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { force: { type: 'boolean', default: false } },
  })
  const folder = positionals[0]
  if (!folder || !existsSync(folder) || !statSync(folder).isDirectory()) {
    console.error(
      'usage: npm run lists:import -- <folder with OFAC, EU and/or UN list files> [--force: load a version older than the one in use]',
    )
    return 2
  }
  // Claimed before anything else loads: a folder a running service holds is refused at once.
  const dataDirLock = claimDataDirFromEnv()
  const [{ default: cliProgress }, { systemClock }, sanctions, { createDatabase }, { loadConfig }] =
    await Promise.all([
      import('cli-progress'),
      import('../core/context.ts'),
      import('../core/sanctions/index.ts'),
      import('../core/store/database.ts'),
      import('./config.ts'),
    ])
  const { createSanctionsListStore, createSanctionsService, findListFiles, LIST_DISPLAY_NAMES, LIST_KEYS } =
    sanctions
  const config = loadConfig()
  const { found, chosen } = await findListFiles(path.resolve(folder))
  const keys = LIST_KEYS.filter((key) => chosen[key])
  if (keys.length === 0) {
    console.error(`no OFAC SDN (advanced XML or sdn.csv), EU or UN list file found under ${folder}`)
    return 1
  }
  console.log(`${found.length} list files found; loading:`)
  for (const key of keys) {
    const file = chosen[key]!
    console.log(
      `  ${LIST_DISPLAY_NAMES[key]}: ${path.relative(process.cwd(), file.path)} (${file.format}, ${file.date})`,
    )
  }

  const database = await createDatabase({
    url: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    ...(dataDirLock ? { dataDirLock } : {}),
  })
  const bars = new cliProgress.MultiBar(
    {
      format: ' {list} |{bar}| {phase}',
      hideCursor: true,
      clearOnComplete: false,
      noTTYOutput: true,
      notTTYSchedule: 1000,
    },
    cliProgress.Presets.shades_classic,
  )
  const bar = new Map<ListKey, ReturnType<typeof bars.create>>()
  for (const key of keys) bar.set(key, bars.create(3, 0, { list: key.padEnd(8), phase: 'reading' }))
  const onProgress = (event: ListProgressEvent) => {
    const phase =
      event.phase === 'done'
        ? `${event.status}${event.entry_count !== undefined ? `, ${event.entry_count} entries` : ''}${event.error ? `: ${event.error}` : ''}`
        : event.phase === 'parse'
          ? 'parsing'
          : event.phase === 'store'
            ? 'storing'
            : 'reading'
    bar.get(event.list_key)?.update(STEPS[event.phase], { phase })
  }
  const service = createSanctionsService({
    store: createSanctionsListStore(database.db, systemClock),
    clock: systemClock,
    sources: Object.fromEntries(keys.map((key) => [key, chosen[key]!.path])),
    keepVersions: config.SANCTIONS_KEEP_VERSIONS,
    // No background pass: this command runs one refresh and exits.
    startupRefreshDelayMs: 24 * 3_600_000,
    onProgress,
  })
  try {
    await service.start()
    const report = await service
      .refresh({ force: true, lists: keys, acceptOlder: values.force === true })
      .finally(() => bars.stop())
    const failed = report.lists.filter(
      (outcome) => outcome.status === 'failed' || outcome.status === 'refused_older',
    )
    for (const outcome of report.lists) {
      if (!keys.includes(outcome.list_key)) continue
      console.log(
        `${LIST_DISPLAY_NAMES[outcome.list_key]}: ${outcome.status}${outcome.entry_count !== undefined ? ` (${outcome.entry_count} entries${outcome.publication_date ? `, published ${outcome.publication_date}` : ''})` : ''}${outcome.error ? `: ${outcome.error}` : ''}`,
      )
    }
    return failed.length > 0 ? 1 : 0
  } finally {
    await service.stop()
    await database.close()
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : error)
    if (error instanceof DataDirInUseError) {
      console.error(
        'While the service runs, POST /v1/admin/sanctions/refresh (ADMIN_API_KEY) makes it refresh its lists from their configured sources.',
      )
    }
    process.exit(1)
  },
)
