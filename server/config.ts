import { z } from 'zod'
import type { Tier } from '../core/context.ts'
import {
  DEFAULT_RATE_LIMITS,
  parseTierLimits,
  type RateLimitPolicy,
  type TierLimits,
} from '../core/limits/index.ts'

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
 * Every environment variable the service reads, parsed once (CONVENTIONS 2). The README's
 * configuration table lists the same names and defaults.
 */
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
  // Sanctions lists (server/sanctions.ts): an http(s) URL, a file path (.bz2 accepted), `official`
  // or `off`. Unset: the official URL when NODE_ENV=production, otherwise off.
  NODE_ENV: optionalString,
  SANCTIONS_OFAC_SOURCE: optionalString,
  SANCTIONS_EU_SOURCE: optionalString,
  SANCTIONS_UN_SOURCE: optionalString,
  SANCTIONS_REFRESH_HOURS: z.coerce.number().positive().max(720).default(24),
  SANCTIONS_DOWNLOAD_TIMEOUT_MS: z.coerce.number().int().min(1000).default(300_000),
  SANCTIONS_KEEP_VERSIONS: z.coerce.number().int().min(1).max(1000).default(10),
  SANCTIONS_STARTUP_REFRESH_DELAY_MS: z.coerce.number().int().min(0).default(2000),
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
  return parsed.data
}

/** The rate-limit policy of a configuration (defaults in core/limits/rate-limits.ts); undefined when RATE_LIMITS=off. */
export function rateLimitPolicyOf(config: Config): RateLimitPolicy | undefined {
  if (config.RATE_LIMITS === 'off') return undefined
  const tier = (name: Tier, value: string | undefined): TierLimits =>
    (value === undefined ? undefined : parseTierLimits(value)) ?? DEFAULT_RATE_LIMITS.tiers[name]
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
  }
}
