import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Clock } from '../context.ts'
import { ServiceError } from '../errors.ts'
import type { Db } from '../store/database.ts'
import { maintenanceState } from '../store/schema.ts'

/**
 * The operator's maintenance switch (spec: 503 for maintenance). While it is on, every priced
 * and key operation answers 503 with the operator's message and Retry-After, charging nothing;
 * public routes and /health keep answering and say so; operator (admin) keys keep working. The
 * state is one database row, so every process on one PostgreSQL follows the same switch; each
 * process reads it at most every `cacheMs` (default 2 s).
 */

export const DEFAULT_MAINTENANCE_MESSAGE = 'The service is down for maintenance; please try again later.'
export const DEFAULT_MAINTENANCE_RETRY_AFTER = 600

/** PUT /v1/admin/maintenance (and `npm run cli -- maintenance on|off`). */
export const MaintenanceInput = z
  .object({
    enabled: z.boolean().describe('true: turn maintenance on; false: off'),
    message: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('What callers are told while it is on (default: a generic maintenance message)'),
    retry_after_seconds: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .optional()
      .describe('Retry-After callers get, in seconds (default 600)'),
  })
  .strict()
export type MaintenanceRequest = z.infer<typeof MaintenanceInput>

export interface MaintenanceState {
  enabled: boolean
  message: string
  retry_after_seconds: number
  /** When it was last switched (null: never). */
  changed_at: string | null
  /** `admin_api` or `cli` (null: never switched). */
  changed_by: string | null
}

export interface MaintenanceSwitch {
  /** The switch as this process sees it (at most `cacheMs` old). */
  current(): Promise<MaintenanceState>
  /** Switches it for every process on the database; this process sees it at once. */
  set(request: MaintenanceRequest, by: 'admin_api' | 'cli'): Promise<MaintenanceState>
}

const ROW_ID = 'service'

const OFF: MaintenanceState = {
  enabled: false,
  message: DEFAULT_MAINTENANCE_MESSAGE,
  retry_after_seconds: DEFAULT_MAINTENANCE_RETRY_AFTER,
  changed_at: null,
  changed_by: null,
}

/** The maintenance switch over the service database. */
export function createMaintenanceSwitch(options: {
  db: Db
  clock: Clock
  cacheMs?: number
}): MaintenanceSwitch {
  const { db, clock } = options
  const cacheMs = options.cacheMs ?? 2000
  let cached: { state: MaintenanceState; readAt: number } | undefined
  let reading: Promise<MaintenanceState> | undefined

  async function read(): Promise<MaintenanceState> {
    const [row] = await db.select().from(maintenanceState).where(eq(maintenanceState.id, ROW_ID))
    const state: MaintenanceState = row
      ? {
          enabled: row.enabled,
          message: row.message,
          retry_after_seconds: row.retryAfterSeconds,
          changed_at: row.changedAt.toISOString(),
          changed_by: row.changedBy,
        }
      : OFF
    cached = { state, readAt: clock.now().getTime() }
    return state
  }

  return {
    async current() {
      if (cached && clock.now().getTime() - cached.readAt < cacheMs) return cached.state
      // One read at a time per process, however many requests arrive together.
      reading ??= read().finally(() => {
        reading = undefined
      })
      return reading
    },
    async set(request, by) {
      const now = clock.now()
      const values = {
        enabled: request.enabled,
        message: request.message ?? DEFAULT_MAINTENANCE_MESSAGE,
        retryAfterSeconds: request.retry_after_seconds ?? DEFAULT_MAINTENANCE_RETRY_AFTER,
        changedAt: now,
        changedBy: by,
      }
      await db
        .insert(maintenanceState)
        .values({ id: ROW_ID, ...values })
        .onConflictDoUpdate({ target: maintenanceState.id, set: values })
      return read()
    },
  }
}

/** The 503 every priced or key call gets while maintenance is on (nothing is charged). */
export function maintenanceError(state: MaintenanceState): ServiceError {
  return new ServiceError('unavailable', state.message, {
    retryAfter: state.retry_after_seconds,
    extra: { errorCode: 'maintenance', charged: false, maintenance_since: state.changed_at },
  })
}
