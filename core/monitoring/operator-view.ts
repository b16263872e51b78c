import { z } from 'zod'
import type { SanctionsListStore } from '../sanctions/list-store.ts'
import type { RefreshReport, SanctionsService } from '../sanctions/sanctions-service.ts'
import { LIST_KEYS, ListKeySchema } from '../sanctions/types.ts'
import type { SanctionsMonitor } from './sanctions-monitor.ts'

/**
 * The operator's view of the lists behind the alerts: versions, dates,
 * counts, last check, last error, and for each diff whether (and how many) alerts it produced,
 * so an operator can see why an alert did or did not fire.
 */

export const AdminRefreshInput = z
  .object({
    lists: z
      .array(ListKeySchema)
      .min(1)
      .optional()
      .describe('Only these lists (default: every configured list)'),
    force: z.boolean().optional().describe('Read the sources even when not due (default true)'),
  })
  .strict()

export interface MonitoringOperatorDeps {
  sanctions: SanctionsService
  listStore: SanctionsListStore
  monitor: SanctionsMonitor
}

/** Forces a refresh now, then turns any new diff into alerts at once. */
export async function refreshNow(
  deps: MonitoringOperatorDeps,
  input: z.infer<typeof AdminRefreshInput>,
): Promise<RefreshReport & { alerts_created: number }> {
  const report = await deps.sanctions.refresh({
    force: input.force ?? true,
    ...(input.lists ? { lists: input.lists } : {}),
  })
  const alerts = await deps.monitor.processPending()
  return { ...report, alerts_created: alerts }
}

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null)

/** Every list: what is loaded, the stored versions, the recent diffs and their alerts. */
export async function listsReport(deps: MonitoringOperatorDeps) {
  const status = deps.sanctions.status()
  const diffs = await deps.listStore.diffs({ limit: 200 })
  const runs = await deps.monitor.diffRuns(diffs.map((diff) => diff.id))
  const lists = await Promise.all(
    LIST_KEYS.map(async (key) => {
      const state = status.find((entry) => entry.list_key === key)!
      const versions = await deps.listStore.versions(key)
      return {
        list_key: key,
        list: state.list,
        configured: state.configured,
        loaded_version: state.loaded
          ? {
              version_id: state.loaded.version_id,
              publication_date: state.loaded.publication_date,
              entry_count: state.loaded.entry_count,
              fetched_at: iso(state.loaded.fetched_at),
              checked_at: iso(state.loaded.checked_at),
            }
          : null,
        stale: state.stale,
        last_attempt_at: iso(state.last_attempt_at),
        last_error: state.last_error,
        versions: versions.map((version) => ({
          version_id: version.id,
          publication_date: version.publication_date,
          entry_count: version.entry_count,
          format: version.format,
          sha256: version.sha256,
          source: version.source,
          fetched_at: iso(version.fetched_at),
          checked_at: iso(version.checked_at),
        })),
        diffs: diffs
          .filter((diff) => diff.list_key === key)
          .map((diff) => {
            const run = runs.get(diff.id)
            return {
              diff_id: diff.id,
              from_date: diff.from_date,
              to_date: diff.to_date,
              added: diff.added_count,
              removed: diff.removed_count,
              changed: diff.changed_count,
              created_at: iso(diff.created_at),
              alerts_processed: run !== undefined,
              alert_count: run?.alert_count ?? null,
              alerts_processed_at: iso(run?.processed_at),
            }
          }),
      }
    }),
  )
  return { lists }
}
