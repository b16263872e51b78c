import type { DeepCheckSources } from '../core/checks/index.ts'
import type { Clock } from '../core/context.ts'
import {
  type CircuitBreaker,
  createGdeltClient,
  createInsolvencyRegisterClient,
  createOpenapiRiskProvider,
  createYenteClient,
} from '../core/sources/index.ts'
import type { Config } from './config.ts'

/**
 * The deep check's sources from config. A source left unconfigured is absent: a deep-check tier
 * that needs it answers 503 naming it (nothing charged); the credit tier is off unless
 * CREDIT_PROVIDER names a provider (then its 403 turns into real reports).
 */
export function buildDeepCheckSources(config: Config, clock: Clock): DeepCheckSources {
  return buildDeepCheck(config, clock).sources
}

/** The deep check's sources and, by provider key, the circuit breakers that measure their calls. */
export function buildDeepCheck(
  config: Config,
  clock: Clock,
): {
  sources: DeepCheckSources
  breakers: Partial<Record<'yente' | 'insolvency_nl' | 'gdelt' | 'credit_it', CircuitBreaker>>
} {
  const common = { clock, timeoutMs: config.SOURCE_TIMEOUT_MS }
  const pep = config.YENTE_URL
    ? createYenteClient({
        ...common,
        baseUrl: config.YENTE_URL,
        apiKey: config.YENTE_API_KEY,
        dataset: config.YENTE_DATASET,
      })
    : undefined
  const insolvency =
    config.CIR_USERNAME && config.CIR_PASSWORD
      ? createInsolvencyRegisterClient({
          ...common,
          url: config.CIR_URL,
          username: config.CIR_USERNAME,
          password: config.CIR_PASSWORD,
        })
      : undefined
  const media =
    config.GDELT_DOC_URL !== 'off'
      ? createGdeltClient({ ...common, url: config.GDELT_DOC_URL, maxRecords: config.GDELT_MAX_ARTICLES })
      : undefined
  const credit =
    config.CREDIT_PROVIDER === 'openapi' && config.OPENAPI_RISK_TOKEN
      ? createOpenapiRiskProvider({
          ...common,
          baseUrl: config.OPENAPI_RISK_URL,
          token: config.OPENAPI_RISK_TOKEN,
        })
      : undefined
  return {
    sources: {
      ...(pep ? { pep } : {}),
      ...(insolvency ? { insolvency } : {}),
      ...(media ? { media } : {}),
      ...(credit ? { credit } : {}),
    },
    breakers: {
      ...(pep ? { yente: pep.breaker } : {}),
      ...(insolvency ? { insolvency_nl: insolvency.breaker } : {}),
      ...(media ? { gdelt: media.breaker } : {}),
      ...(credit ? { credit_it: credit.breaker } : {}),
    },
  }
}
