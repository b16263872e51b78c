import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { createCheckStore } from '../core/checks/index.ts'
import type { Clock } from '../core/context.ts'
import { systemClock } from '../core/context.ts'
import { type AnswerEvidence, createAnswerEvidence } from '../core/evidence/answer-evidence.ts'
import { type AuditStore, createAuditStore } from '../core/evidence/audit-store.ts'
import { AUDIT_SUBJECTS } from '../core/evidence/audit-subjects.ts'
import { auditedKeys } from '../core/evidence/audited-keys.ts'
import { createIdempotencyStore } from '../core/idempotency/index.ts'
import { createDeliveryJournal } from '../core/keys/delivery-journal.ts'
import { type ApiKeyService, createApiKeyService } from '../core/keys/index.ts'
import { createRateLimiter } from '../core/limits/index.ts'
import { createMaintenanceSwitch } from '../core/maintenance/index.ts'
import {
  type AnyOperation,
  type OperationRuntime,
  operations as registry,
  type ServiceDeps,
} from '../core/operations/index.ts'
import { createProviderRegistrations } from '../core/providers/index.ts'
import type { ReportSigner } from '../core/reports/evidence.ts'
import { createReportShares, type ReportShares } from '../core/reports/report-shares.ts'
import { createReportStore, type ReportStore } from '../core/reports/report-store.ts'
import { AUDIT_TRAIL_CATEGORY } from '../core/retention/categories.ts'
import { createDataPurge } from '../core/retention/data-purge.ts'
import { SUBJECT_DATA } from '../core/retention/subject-data.ts'
import { listHealth } from '../core/sanctions/list-health.ts'
import { createSanctionsListStore } from '../core/sanctions/list-store.ts'
import type { DataDirLock } from '../core/store/data-dir-lock.ts'
import { createDatabase, type Database } from '../core/store/database.ts'
import { createKboDatabaseStore } from '../core/store/kbo-database-store.ts'
import { createUsageRecorder } from '../core/usage/usage-recorder.ts'
import { backfillUsageRollups, createUsageReports } from '../core/usage/usage-reports.ts'
import type { LoopbackReceiverOverride } from '../core/webhooks/url-guard.ts'
import { createApp } from '../http/app.ts'
import { createHealthMonitor, type HealthMonitor } from '../http/health-monitor.ts'
import type { PdfRenderer } from '../http/pdf.ts'
import { adminSanctionsRoutes } from '../http/routes/admin-sanctions-routes.ts'
import { discoveryRoutes } from '../http/routes/discovery-routes.ts'
import { docsRoutes } from '../http/routes/docs-routes.ts'
import { evidenceRoutes } from '../http/routes/evidence-routes.ts'
import { paymentRoutes } from '../http/routes/payment-routes.ts'
import { reportPublicRoutes } from '../http/routes/report-public-routes.ts'
import { statusOfOutcome } from '../http/status.ts'
import { listPrompts } from '../tools/mcp-prompts.ts'
import { createMcpHttpHandler, createMcpToolset, type McpToolset } from '../tools/mcp-server.ts'
import { buildAgentChain } from './agent-chain.ts'
import { buildCompanySources } from './company-sources.ts'
import { type Config, rateLimitPolicyOf } from './config.ts'
import { buildDeepCheck } from './deep-check-sources.ts'
import { buildDiscovery } from './discovery.ts'
import { buildMonitoring, type Monitoring, webhookSecretBox } from './monitoring.ts'
import { buildPayments, publicBaseUrlOf } from './payments.ts'
import { chromiumPdfRenderer } from './pdf-renderer.ts'
import { buildProviderDirectory, createCompanySourceBreakers } from './providers.ts'
import { buildReportSigner } from './report-signing.ts'
import { buildRetention } from './retention.ts'
import { buildSanctions } from './sanctions.ts'

export const VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version

export interface Service {
  config: Config
  database: Database
  runtime: OperationRuntime & { keys: ApiKeyService }
  /** The MCP tools of the registry, built once (served at /mcp, and over stdio). */
  mcp: McpToolset
  app: ReturnType<typeof createApp>
  startedAt: Date
  /** Compliance alerts, watchlists, webhooks and the delivery worker. */
  monitoring: Monitoring
  /** The audit trail (receipts of paid answers, key and configuration changes). */
  audit: AuditStore
  close(): Promise<void>
}

export interface ServiceOverrides {
  clock?: Clock
  /** An already open database (tests). */
  database?: Database
  /** The claim on DATA_DIR the entry point took before loading the service (claimDataDirFromEnv). */
  dataDirLock?: DataDirLock
  log?: (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void
  /** Check every answer against its operation's output schema (tests). */
  checkOutputs?: boolean
  /** Benchmarks: false signs no receipts (the audit trail is kept either way). Default true. */
  receipts?: boolean
  /** Another operation registry (tests of the payment path with their own operations). */
  operations?: readonly AnyOperation[]
  /**
   * Tests only: admit webhook receivers on 127.0.0.1 whose certificates a test CA issued. Code
   * only (no environment variable sets it), and refused when NODE_ENV=production.
   */
  webhookTestReceivers?: LoopbackReceiverOverride
}

const LEVELS = { debug: 0, info: 1, warn: 2, error: 3 } as const

/** JSON lines on stdout (stderr for errors), from LOG_LEVEL up. */
function jsonLog(minimum: Config['LOG_LEVEL']): NonNullable<ServiceOverrides['log']> {
  return (level, message, extra) => {
    if (LEVELS[level] < LEVELS[minimum]) return
    const line = JSON.stringify({
      level,
      message,
      time: new Date().toISOString(),
      ...(extra ? { extra } : {}),
    })
    if (level === 'error') console.error(line)
    else console.log(line)
  }
}

/** The composition root, as a list of wiring steps: config -> database -> ports -> runtime -> HTTP app (with /mcp). */
export async function createService(config: Config, overrides: ServiceOverrides = {}): Promise<Service> {
  const log = overrides.log ?? jsonLog(config.LOG_LEVEL)
  const operations = overrides.operations ?? registry
  const clock = overrides.clock ?? systemClock
  const database = overrides.database ?? (await openDatabase(config, overrides.dataDirLock))
  const baseKeys = createApiKeyService({ db: database.db, clock, adminKey: config.ADMIN_API_KEY })
  let evidence: AnswerEvidence | undefined
  // Key changes made through the operator and payment routes go into the audit trail.
  const keys = auditedKeys(
    baseKeys,
    () => evidence,
    (error) => log('error', 'a key change was not recorded in the audit trail', String(error)),
  )
  const maintenance = createMaintenanceSwitch({ db: database.db, clock })
  const sanctions = buildSanctions(config, database, clock, log)
  await sanctions.service.start()
  const instanceId = randomUUID()
  // A database handed in belongs to its caller (tests, embedding): no files of ours beside it.
  const journal = overrides.database
    ? undefined
    : createDeliveryJournal({
        dir: path.join(config.DATA_DIR, 'deliveries'),
        instanceId,
        onError: (error) =>
          log(
            'error',
            'the delivery journal cannot be written; a crash may leave answers unpaid',
            String(error),
          ),
      })
  const payments = buildPayments(config, database, instanceId, clock, log, journal)
  await payments.start()
  const agentChain = await buildAgentChain(config, clock, log)
  const retention = buildRetention(config, database, clock, log, () => listHealth(sanctions.service))
  const embedded = database.kind === 'pglite' && !overrides.database
  const secretBox = webhookSecretBox(config, embedded)
  const signer = await buildReportSigner(config, embedded, secretBox)
  const reports = {
    signer,
    store: createReportStore(database.db),
    shares: createReportShares({ db: database.db, clock, macKey: signer.shareKey }),
  }
  const monitoring = buildMonitoring(config, database, clock, log, secretBox, {
    instanceId,
    // Dismissals go into the key's audit trail (the evidence is built below, before any call).
    onDismissalChange: (event) =>
      evidence
        ?.recordChange({
          chain: `key:${event.key_id}`,
          keyId: event.key_id,
          action: `dismissal.${event.type}`,
          outcome: 'ok',
          subject: event.dismissal.subject,
          detail: {
            dismissal_id: event.dismissal.dismissal_id,
            list: event.dismissal.list_key,
            entry_id: event.dismissal.entry_id,
          },
        })
        .catch((error) => log('error', 'a dismissal was not recorded in the audit trail', String(error))),
    ...(overrides.webhookTestReceivers ? { testReceivers: overrides.webhookTestReceivers } : {}),
  })
  monitoring.start()
  const backfilled = await backfillUsageRollups(database.db)
  if (backfilled > 0) log('info', 'usage rollup built from the usage log', { rows: backfilled })
  const deps = await buildServiceDeps({
    config,
    database,
    clock,
    log,
    operations,
    keys: baseKeys,
    maintenance,
    sanctions,
    payments,
    agentChain,
    reports,
    retention,
    monitoring,
    evidence: () => evidence,
  })
  const limits = buildLimits(config, database, clock, log)
  const audit = buildAudit(database, clock, log, reports.signer, retention)
  evidence = createAnswerEvidence({
    signer: reports.signer,
    jwksUrl: deps.reports?.jwksUrl ?? '',
    audit: audit.store,
    clock,
    lists: () => sanctions.service.loadedLists(),
    receipts: overrides.receipts ?? true,
    onError: (error) => log('error', 'an audit row was not written', String(error)),
  })
  const runtime = {
    evidence,
    keys,
    payments: payments.gate,
    limits: limits.limiter,
    usage: createUsageRecorder(database.db, (error) => log('warn', 'usage not recorded', String(error))),
    idempotency: createIdempotencyStore(database.db, { instanceId }),
    maintenance,
    deps,
    clock,
    checkOutputs: overrides.checkOutputs,
    onWriteError: (error: unknown, operationId: string) =>
      log('error', 'the result of a paid call was not stored', { operationId, error: String(error) }),
  }
  const startedAt = new Date()
  const healthMonitor = createHealthMonitor({ database, lists: () => listHealth(sanctions.service) })
  healthMonitor.start()
  const pdf = config.CHROMIUM_PATH ? chromiumPdfRenderer(config.CHROMIUM_PATH) : undefined
  const { app, mcp } = buildInterfaces({
    pdf,
    config,
    database,
    clock,
    log,
    operations,
    runtime,
    startedAt,
    healthMonitor,
    maintenance,
    sanctions,
    payments,
    reports,
    retention,
    monitoring,
    audit: audit.store,
  })
  // First pass a minute after start-up, then every RETENTION_INTERVAL_MINUTES.
  retention.job.start()
  return {
    config,
    database,
    runtime,
    mcp,
    app,
    startedAt,
    monitoring,
    audit: audit.store,
    close: async () => {
      healthMonitor.stop()
      audit.stop()
      await retention.job.stop()
      await pdf?.close()
      await monitoring.stop()
      await limits.close()
      await sanctions.service.stop()
      payments.stop()
      // Captures of answers just delivered are written before the database closes.
      await payments.reservations.drain()
      await audit.store.drain()
      journal?.close()
      baseKeys.close()
      await database.close()
    },
  }
}

type Log = NonNullable<ServiceOverrides['log']>

/**
 * The audit trail, with its retention: once a day (and a minute after start-up) the rows older
 * than the `audit_trail` category's retention are dropped, each chain's range replaced by a
 * signed checkpoint.
 */
function buildAudit(
  database: Database,
  clock: Clock,
  log: Log,
  signer: ReportSigner,
  retention: ReturnType<typeof buildRetention>,
) {
  const store = createAuditStore({ db: database.db, clock, signer })
  const days = retention.job.retentionDays(AUDIT_TRAIL_CATEGORY)
  const drop = () => {
    if (days <= 0) return
    const cutoff = new Date(clock.now().getTime() - days * 86_400_000)
    store
      .dropExpired(cutoff)
      .then((dropped) => {
        if (dropped > 0) log('info', 'expired audit rows dropped behind a signed checkpoint', { dropped })
      })
      .catch((error) => log('warn', 'expired audit rows not dropped', String(error)))
  }
  const first = setTimeout(drop, 60_000)
  const daily = setInterval(drop, 86_400_000)
  first.unref()
  daily.unref()
  return {
    store,
    stop: () => {
      clearTimeout(first)
      clearInterval(daily)
    },
  }
}

/** PGlite in DATA_DIR (under the claim the entry point took) or PostgreSQL at DATABASE_URL. */
function openDatabase(config: Config, dataDirLock: DataDirLock | undefined): Promise<Database> {
  return createDatabase({
    url: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    ...(dataDirLock ? { dataDirLock } : {}),
  })
}

/** What the wiring steps below share: the parts built by createService. */
interface Parts {
  config: Config
  database: Database
  clock: Clock
  log: Log
  operations: readonly AnyOperation[]
  maintenance: ReturnType<typeof createMaintenanceSwitch>
  sanctions: ReturnType<typeof buildSanctions>
  payments: ReturnType<typeof buildPayments>
  reports: { signer: ReportSigner; store: ReportStore; shares: ReportShares }
  retention: ReturnType<typeof buildRetention>
  monitoring: Monitoring
}

/** The ports operations use (ServiceDeps), with the provider directory that watches them. */
async function buildServiceDeps(
  parts: Parts & {
    keys: ApiKeyService
    agentChain: Awaited<ReturnType<typeof buildAgentChain>>
    evidence: () => AnswerEvidence | undefined
  },
): Promise<ServiceDeps> {
  const { config, database, clock, log, keys, sanctions, payments, agentChain } = parts
  const breakers = createCompanySourceBreakers(clock)
  const deepCheck = buildDeepCheck(config, clock)
  const providers = buildProviderDirectory({
    config,
    clock,
    registrations: createProviderRegistrations(database.db),
    kboImported: async () => (await createKboDatabaseStore(database.db).getImportState()) !== null,
    breakers,
    sanctions: sanctions.service,
    facilitatorBreaker: payments.facilitatorBreaker,
    deepCheckBreakers: deepCheck.breakers,
    agentChain: {
      breaker: agentChain.reader?.breaker,
      chainId: agentChain.reader?.chainId ?? 0,
      registries: agentChain.registries,
    },
  })
  // registered_at: the providers configured now are recorded once, at the first start that has them.
  await providers.register().catch((error) => log('warn', 'providers not registered', String(error)))
  const endpoints = new Map(
    [...registry, ...parts.operations].map((operation) => [
      operation.id,
      `${operation.http.method} ${operation.http.path}`,
    ]),
  )
  return {
    sanctions: sanctions.port,
    sanctionsLists: sanctions.service,
    companySources: await buildCompanySources(config, clock, log, database.db, breakers),
    checks: createCheckStore(database.db),
    deepCheck: deepCheck.sources,
    reports: {
      ...parts.reports,
      jwksUrl: `${publicBaseUrlOf(config).replace(/\/+$/, '')}/.well-known/jwks.json`,
    },
    keys,
    ...(agentChain.reader ? { agentChain: agentChain.reader } : {}),
    agentRegistries: agentChain.registries,
    usage: createUsageReports(database.db, {
      endpointOf: (operationId) => endpoints.get(operationId) ?? operationId,
      statusOf: statusOfOutcome,
    }),
    financial: {
      keys,
      ledger: payments.x402?.ledger,
      settlementConfigured: payments.settlementConfigured,
      solanaSettlementConfigured: payments.solanaSettlementConfigured,
      treasuryBalance: payments.treasuryBalance,
      frozen: async () => (await parts.maintenance.current()).enabled,
    },
    providers,
    dataInventory: parts.retention.inventory,
    monitoring: parts.monitoring.port,
    dismissals: parts.monitoring.dismissals,
    purge: createDataPurge({
      db: database.db,
      // The audit trail keeps its rows (hash-chained, append-only): a purge removes their subject.
      locations: [...SUBJECT_DATA, AUDIT_SUBJECTS],
      onPurged: (event) =>
        parts
          .evidence()
          ?.recordChange({
            chain: `key:${event.key_id}`,
            keyId: event.key_id,
            action: 'data.purge',
            outcome: 'ok',
            // Never the subject itself: it was just erased.
            detail: { scope: event.scope, total_removed: event.result.total_removed },
          })
          .catch((error) => log('error', 'a purge was not recorded in the audit trail', String(error))),
    }),
  }
}

/**
 * The rate limiter of the configured policy (none when RATE_LIMITS=off), with the sweep that
 * deletes counters with nothing left to count every 10 minutes (any process may do it).
 */
function buildLimits(config: Config, database: Database, clock: Clock, log: Log) {
  const policy = rateLimitPolicyOf(config)
  const limiter = policy
    ? createRateLimiter({
        db: database.db,
        clock,
        policy,
        kind: database.kind,
      })
    : undefined
  const sweep = limiter
    ? setInterval(() => {
        limiter.sweep().catch((error) => log('warn', 'rate-limit counters not swept', String(error)))
      }, 600_000)
    : undefined
  sweep?.unref()
  return {
    limiter,
    close: async () => {
      clearInterval(sweep)
      await limiter?.close().catch((error) => log('warn', 'rate-limit counters not written', String(error)))
    },
  }
}

/** The MCP toolset and the HTTP app (operation routes, /mcp, payments, discovery, docs, admin). */
function buildInterfaces(
  parts: Parts & {
    runtime: Service['runtime']
    startedAt: Date
    healthMonitor: HealthMonitor
    pdf: PdfRenderer | undefined
    audit: AuditStore
  },
) {
  const { config, database, clock, log, operations, runtime, startedAt, maintenance, sanctions, pdf } = parts
  const { payments, reports, monitoring } = parts
  const onError = (error: unknown, requestId: string) =>
    log('error', 'unexpected error', {
      requestId,
      error: error instanceof Error ? error.stack : String(error),
    })
  const resourceBase = publicBaseUrlOf(config)
  const discovery = buildDiscovery({
    config,
    version: VERSION,
    baseUrl: resourceBase,
    startedAt,
    clock,
    payment: payments.x402?.config,
    sanctions: sanctions.service,
    storedCategories: parts.retention.notes,
    reportSigningKeyId: reports.signer.keyId,
  })
  const mcp = createMcpToolset({ runtime, operations, version: VERSION, resourceBase, onError })
  const keys = runtime.keys
  const app = createApp({
    ...(pdf ? { pdf } : {}),
    runtime,
    operations,
    health: {
      version: VERSION,
      startedAt,
      database,
      lists: () => listHealth(sanctions.service),
      maintenance: () => maintenance.current(),
      monitor: parts.healthMonitor,
    },
    maintenance,
    maxBodyBytes: config.MAX_BODY_BYTES,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    onError,
    mcp: createMcpHttpHandler(mcp),
    mcpAllowedOrigins: [
      resourceBase,
      ...(config.MCP_ALLOWED_ORIGINS ?? '')
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    ],
    corsAllowedOrigins: config.CORS_ALLOWED_ORIGINS.split(',').map((origin) => origin.trim()),
    routes: [
      paymentRoutes({
        keys,
        x402: payments.x402,
        operations,
        publicBaseUrl: resourceBase,
        maintenance,
        recordKeyChange: async (keyId, action, detail) => {
          await runtime.evidence
            ?.recordChange({ chain: `key:${keyId}`, keyId, action, outcome: 'ok', detail })
            .catch((error) => log('error', 'a key change was not recorded in the audit trail', String(error)))
        },
      }),
      discoveryRoutes({ ...discovery, operations, prompts: listPrompts() }),
      reportPublicRoutes({
        signer: reports.signer,
        store: reports.store,
        shares: reports.shares,
        clock,
        ...(pdf ? { pdf } : {}),
      }),
      evidenceRoutes({ keys, audit: parts.audit }),
      docsRoutes(),
      adminSanctionsRoutes(keys, {
        sanctions: sanctions.service,
        listStore: createSanctionsListStore(database.db, clock),
        monitor: monitoring.monitor,
      }),
    ],
  })
  return { app, mcp }
}
