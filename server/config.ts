import { createPrivateKey } from 'node:crypto'
import { z } from 'zod'
import type { Tier } from '../core/context.ts'
import {
  DEFAULT_RATE_LIMITS,
  parseTierLimits,
  type RateLimitPolicy,
  type TierLimits,
} from '../core/limits/index.ts'
import { readSolanaSecretKey } from '../core/payments/svm/fee-payer.ts'

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value))

/** `*`, or an http(s) origin written as browsers send it (no path, no trailing slash). */
function isCorsOrigin(entry: string): boolean {
  if (entry === '*') return true
  try {
    const url = new URL(entry)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry
  } catch {
    return false
  }
}

/** A webhook secret key: 32 bytes as 64 hex characters or base64. */
function isSecretKey(text: string): boolean {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return true
  return /^[A-Za-z0-9+/]{43}=?$/.test(text) && Buffer.from(text, 'base64').length === 32
}
/**
 * An Ed25519 private key in PKCS#8 PEM, as REPORT_SIGNING_KEY holds it (newlines may be written
 * as `\n` in one-line environments).
 */
function isEd25519PrivateKeyPem(text: string): boolean {
  try {
    return createPrivateKey(text.replace(/\\n/g, '\n')).asymmetricKeyType === 'ed25519'
  } catch {
    return false
  }
}

/** `per-minute/per-day/per-month` for one tier (0: no limit in that window); unset: the default. */
const tierLimits = optionalString.pipe(
  z
    .string()
    .refine(
      (value) => parseTierLimits(value) !== undefined,
      'use per-minute/per-day/per-month as whole numbers (0: no limit), e.g. 300/100000/2000000',
    )
    .optional(),
)

/**
 * Every environment variable the service reads, parsed once (CONVENTIONS 2). docs/configuration.md
 * lists the same names and defaults.
 */
const EVM_ADDRESS = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an EVM address')
  .optional()

export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
  ),
  ADMIN_API_KEY: optionalString.pipe(z.string().min(24, 'use at least 24 characters').optional()),
  PUBLIC_BASE_URL: optionalString.pipe(z.url().optional()),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  // Browser origins allowed to call /mcp besides PUBLIC_BASE_URL's and loopback (comma-separated).
  MCP_ALLOWED_ORIGINS: optionalString,
  // CORS: browser origins allowed on every route but /mcp (comma-separated origins, or `*` for any;
  // never with credentials, since callers authenticate with a header). /mcp follows MCP_ALLOWED_ORIGINS.
  CORS_ALLOWED_ORIGINS: optionalString.pipe(
    z
      .string()
      .default('*')
      .refine(
        (value) => value.split(',').every((entry) => isCorsOrigin(entry.trim())),
        'use `*` or comma-separated origins such as https://app.example.com (scheme, host and port only)',
      ),
  ),
  // Company sources (entity, risk, reputation, KYB checks).
  KVK_API_URL: z.url().default('https://api.kvk.nl'),
  KVK_API_KEY: optionalString,
  VIES_API_URL: z.url().default('https://ec.europa.eu/taxation_customs/vies/rest-api'),
  RDAP_BOOTSTRAP_URL: z.url().default('https://data.iana.org/rdap/dns.json'),
  DNS_SERVERS: optionalString,
  SOURCE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  KBO_DATA_DIR: optionalString,
  // Deep check (server/deep-check-sources.ts). PEP/RCA: an OpenSanctions-compatible yente; unset: not configured.
  YENTE_URL: optionalString.pipe(z.url().optional()),
  YENTE_API_KEY: optionalString,
  YENTE_DATASET: z
    .string()
    .regex(/^[a-z0-9_-]+$/, 'a dataset name such as default or peps')
    .default('default'),
  // Dutch insolvency register web service: needs both credentials (free CIR account).
  CIR_URL: z.url().default('https://webservice.rechtspraak.nl/cir.asmx'),
  CIR_USERNAME: optionalString,
  CIR_PASSWORD: optionalString,
  // Adverse media: the GDELT DOC 2.0 API (`off` disables the enhanced tier's source).
  GDELT_DOC_URL: z
    .string()
    .default('https://api.gdeltproject.org/api/v2/doc/doc')
    .refine((value) => value === 'off' || URL.canParse(value), 'an http(s) URL or off'),
  GDELT_MAX_ARTICLES: z.coerce.number().int().min(1).max(250).default(10),
  // Credit tier (Italian credit reports): off unless a provider is named.
  CREDIT_PROVIDER: z.enum(['off', 'openapi']).default('off'),
  OPENAPI_RISK_URL: z.url().default('https://risk.openapi.com'),
  OPENAPI_RISK_TOKEN: optionalString,
  // Entity report signing key (Ed25519, PKCS#8 PEM): inline or a file path. Required in production;
  // otherwise generated once and kept sealed (AES-256-GCM, webhook secret keys) in DATA_DIR.
  REPORT_SIGNING_KEY: optionalString.pipe(
    z
      .string()
      .refine(
        isEd25519PrivateKeyPem,
        'must be an Ed25519 private key in PKCS#8 PEM (`openssl genpkey -algorithm ed25519`)',
      )
      .optional(),
  ),
  REPORT_SIGNING_KEY_FILE: optionalString,
  // Headless Chromium that renders report PDFs (GET /v1/reports/{id}?format=pdf); unset: 503.
  CHROMIUM_PATH: optionalString,
  // x402 payments (spec: Authentication, x402 details). x402 is on when a payTo is set.
  X402_PAY_TO: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an EVM address')
      .optional(),
  ),
  X402_SOLANA_PAY_TO: optionalString,
  // Fee payer that x402 SVM clients need in extra.feePayer (the facilitator's); else read from the
  // facilitator's GET /supported at start-up.
  X402_SOLANA_FEE_PAYER: optionalString,
  // The service's own Solana fee payer: base58 of the 64-byte secret key, or the path of
  // a solana-keygen JSON key file. With SOLANA_RPC_URL, Solana payments are verified and settled
  // here and the challenge's extra.feePayer is this key. The value is never echoed in errors.
  SOLANA_FEE_PAYER_KEY: optionalString.pipe(
    z
      .string()
      .superRefine((value, ctx) => {
        try {
          readSolanaSecretKey(value)
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message })
        }
      })
      .optional(),
  ),
  SOLANA_RPC_URL: optionalString.pipe(z.url().optional()),
  X402_NETWORKS: z.string().default('eip155:8453'),
  X402_NETWORK_OVERRIDES: optionalString,
  X402_FACILITATOR_URL: optionalString.pipe(z.url().optional()),
  BASE_RPC_URL: optionalString.pipe(z.url().optional()),
  BASE_SEPOLIA_RPC_URL: optionalString.pipe(z.url().optional()),
  SETTLEMENT_PRIVATE_KEY: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte hex private key')
      .optional(),
  ),
  SETTLEMENT_RETRY_INTERVAL_MS: z.coerce.number().int().min(100).default(10_000),
  // Before an x402 call runs, ask the chain (when the network has an RPC URL) whether the payer
  // holds the amount and has not used the authorization: on (default) or off.
  X402_FUNDS_CHECK: z.enum(['on', 'off']).default('on'),
  // A paid call whose settlement cannot even be started (nothing sent): refuse (503, nothing
  // charged; default) or serve (answer now, settle later).
  X402_UNCONFIRMED_SETTLEMENT: z.enum(['refuse', 'serve']).default('refuse'),
  // Sanctions lists (server/sanctions.ts): an http(s) URL, a file path (.bz2 accepted), `official`
  // or `off`. Unset: SANCTIONS_DEFAULT_SOURCE, which is `official` (plain `npm start` reads the
  // official lists); tests and benchmarks set it to `off` explicitly (test/support/test-config.ts).
  NODE_ENV: optionalString,
  SANCTIONS_DEFAULT_SOURCE: z.enum(['official', 'off']).default('official'),
  SANCTIONS_OFAC_SOURCE: optionalString,
  SANCTIONS_EU_SOURCE: optionalString,
  SANCTIONS_UN_SOURCE: optionalString,
  SANCTIONS_REFRESH_HOURS: z.coerce.number().positive().max(720).default(24),
  SANCTIONS_DOWNLOAD_TIMEOUT_MS: z.coerce.number().int().min(1000).default(300_000),
  SANCTIONS_KEEP_VERSIONS: z.coerce.number().int().min(1).max(1000).default(10),
  SANCTIONS_STARTUP_REFRESH_DELAY_MS: z.coerce.number().int().min(0).default(2000),
  // Freshness (docs/sanctions.md): a list published longer ago than this many days is stale in
  // /health and flagged in every answer that used it.
  SANCTIONS_MAX_AGE_DAYS_OFAC: z.coerce.number().int().min(1).max(3650).default(7),
  SANCTIONS_MAX_AGE_DAYS_EU: z.coerce.number().int().min(1).max(3650).default(30),
  SANCTIONS_MAX_AGE_DAYS_UN: z.coerce.number().int().min(1).max(3650).default(30),
  // Agent wallet checks (server/agent-chain.ts): which chain is read (its RPC is BASE_RPC_URL or
  // BASE_SEPOLIA_RPC_URL), the USDC and ERC-8004 registry addresses (defaults: the official ones
  // of that chain) and the first block of the registry event scan.
  AGENT_CHAIN: z.enum(['base', 'base-sepolia']).default('base'),
  AGENT_USDC_ADDRESS: optionalString.pipe(EVM_ADDRESS),
  ERC8004_IDENTITY_REGISTRY: optionalString.pipe(EVM_ADDRESS),
  ERC8004_REPUTATION_REGISTRY: optionalString.pipe(EVM_ADDRESS),
  ERC8004_FROM_BLOCK: z.coerce.number().int().min(0).default(0),
  // Public discovery: the commit self-verify reports (else read with git at start-up),
  // security.txt (RFC 9116) and the legal texts (Markdown files; placeholders when unset).
  SERVICE_COMMIT: optionalString,
  SECURITY_CONTACT: optionalString.pipe(
    z
      .string()
      .refine(
        (value) => value.split(',').every((entry) => /^(mailto:|https:\/\/|tel:)\S+$/.test(entry.trim())),
        'use comma-separated mailto:, https:// or tel: URIs',
      )
      .optional(),
  ),
  SECURITY_POLICY_URL: optionalString.pipe(z.url().optional()),
  SECURITY_TXT_EXPIRES: optionalString.pipe(z.iso.datetime({ offset: true }).optional()),
  LEGAL_TERMS_FILE: optionalString,
  LEGAL_PRIVACY_FILE: optionalString,
  // Retention job (core/retention): per-category overrides `usage_logs=90,stored_checks=180`
  // (checked against the category register at start-up), time between passes, rows per DELETE.
  RETENTION_DAYS: optionalString,
  RETENTION_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(10).max(100_000).default(1000),
  // Sanctions monitoring (server/monitoring.ts): webhook secret keys (comma-separated 32-byte keys,
  // hex or base64; the first encrypts new secrets, all decrypt: rotation), the delivery worker,
  // the watchlist cap and how often new list diffs are turned into alerts.
  WEBHOOK_SECRET_KEYS: optionalString.pipe(
    z
      .string()
      .refine(
        (value) => value.split(',').every((key) => isSecretKey(key.trim())),
        'use comma-separated 32-byte keys: 64 hex characters or base64 (e.g. `openssl rand -hex 32`)',
      )
      .optional(),
  ),
  // Development on one machine: also admit plain http receivers on 127.0.0.1, localhost and [::1]
  // (any port). Refused when NODE_ENV=production; https rules are unchanged either way.
  WEBHOOKS_ALLOW_HTTP_LOOPBACK: z
    .enum(['true', 'false'], 'use true or false')
    .default('false')
    .transform((value) => value === 'true'),
  WEBHOOK_WORKER: z.enum(['on', 'off']).default('on'),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  WEBHOOK_CLAIM_LOCK_MS: z.coerce.number().int().min(11_000).max(3_600_000).default(60_000),
  WATCHLIST_MAX_ENTRIES: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  ALERTS_POLL_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
  // Rate limits (spec: Limits; core/limits): on (default) or off; per-tier numbers; per-minute for
  // x402 payers and for anonymous 402 challenges per client IP.
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  RATE_LIMIT_SANDBOX: tierLimits,
  RATE_LIMIT_FREE: tierLimits,
  RATE_LIMIT_STARTER: tierLimits,
  RATE_LIMIT_PRO: tierLimits,
  RATE_LIMIT_ENTERPRISE: tierLimits,
  RATE_LIMIT_X402_PER_MINUTE: z.coerce.number().int().min(1).max(2_000_000_000).default(120),
  RATE_LIMIT_CHALLENGES_PER_MINUTE: z.coerce.number().int().min(1).max(2_000_000_000).default(60),
  // Self-service key creations per client address and per normalised e-mail (same format as a tier).
  RATE_LIMIT_SIGNUP_ADDRESS: tierLimits,
  RATE_LIMIT_SIGNUP_EMAIL: tierLimits,
  // Proxies in front of the service that append to X-Forwarded-For (the client IP of the challenge limit).
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
})

export type Config = z.infer<typeof ConfigSchema>

/** Parses the environment; a bad value stops start-up with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`)
  }
  if (parsed.data.CREDIT_PROVIDER === 'openapi' && !parsed.data.OPENAPI_RISK_TOKEN) {
    throw new Error('invalid configuration:\n  OPENAPI_RISK_TOKEN: required when CREDIT_PROVIDER=openapi')
  }
  if (parsed.data.WEBHOOKS_ALLOW_HTTP_LOOPBACK && parsed.data.NODE_ENV === 'production') {
    throw new Error(
      'invalid configuration:\n  WEBHOOKS_ALLOW_HTTP_LOOPBACK: a development setting (plain http webhooks to this machine), refused when NODE_ENV=production; unset it',
    )
  }
  if (Boolean(parsed.data.CIR_USERNAME) !== Boolean(parsed.data.CIR_PASSWORD)) {
    throw new Error('invalid configuration:\n  CIR_USERNAME, CIR_PASSWORD: set both or neither')
  }
  return parsed.data
}

/** The rate-limit policy of a configuration (defaults in core/limits/rate-limit-policy.ts); undefined when RATE_LIMITS=off. */
export function rateLimitPolicyOf(config: Config): RateLimitPolicy | undefined {
  if (config.RATE_LIMITS === 'off') return undefined
  const limits = (value: string | undefined, fallback: TierLimits): TierLimits =>
    (value === undefined ? undefined : parseTierLimits(value)) ?? fallback
  const tier = (name: Tier, value: string | undefined): TierLimits =>
    limits(value, DEFAULT_RATE_LIMITS.tiers[name])
  return {
    tiers: {
      sandbox: tier('sandbox', config.RATE_LIMIT_SANDBOX),
      free: tier('free', config.RATE_LIMIT_FREE),
      starter: tier('starter', config.RATE_LIMIT_STARTER),
      pro: tier('pro', config.RATE_LIMIT_PRO),
      enterprise: tier('enterprise', config.RATE_LIMIT_ENTERPRISE),
    },
    x402PerMinute: config.RATE_LIMIT_X402_PER_MINUTE,
    challengesPerMinute: config.RATE_LIMIT_CHALLENGES_PER_MINUTE,
    signups: {
      perAddress: limits(config.RATE_LIMIT_SIGNUP_ADDRESS, DEFAULT_RATE_LIMITS.signups.perAddress),
      perEmail: limits(config.RATE_LIMIT_SIGNUP_EMAIL, DEFAULT_RATE_LIMITS.signups.perEmail),
    },
  }
}
