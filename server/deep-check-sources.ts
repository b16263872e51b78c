import type { DeepCheckSources } from '../core/checks/index.ts'
import type { Clock } from '../core/context.ts'
import {
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
  const common = { clock, timeoutMs: config.SOURCE_TIMEOUT_MS }
  return {
    ...(config.YENTE_URL
      ? {
          pep: createYenteClient({
            ...common,
            baseUrl: config.YENTE_URL,
            apiKey: config.YENTE_API_KEY,
            dataset: config.YENTE_DATASET,
          }),
        }
      : {}),
    ...(config.CIR_USERNAME && config.CIR_PASSWORD
      ? {
          insolvency: createInsolvencyRegisterClient({
            ...common,
            url: config.CIR_URL,
            username: config.CIR_USERNAME,
            password: config.CIR_PASSWORD,
          }),
        }
      : {}),
    ...(config.GDELT_DOC_URL !== 'off'
      ? {
          media: createGdeltClient({
            ...common,
            url: config.GDELT_DOC_URL,
            maxRecords: config.GDELT_MAX_ARTICLES,
          }),
        }
      : {}),
    ...(config.CREDIT_PROVIDER === 'openapi' && config.OPENAPI_RISK_TOKEN
      ? {
          credit: createOpenapiRiskProvider({
            ...common,
            baseUrl: config.OPENAPI_RISK_URL,
            token: config.OPENAPI_RISK_TOKEN,
          }),
        }
      : {}),
  }
}
