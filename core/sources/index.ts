export type {
  AddressClass,
  AddressClassification,
  HostCheck,
  HostCheckOptions,
  LookupAll,
} from './address-guard.ts'
export { checkHost, classifyAddress, isPublicAddress, systemLookupAll } from './address-guard.ts'
export type { CircuitBreaker, CircuitBreakerOptions, CircuitState } from './circuit-breaker.ts'
export { createCircuitBreaker } from './circuit-breaker.ts'
export type { CreditReport, CreditReportProvider, OpenapiRiskOptions } from './credit-report.ts'
export { createOpenapiRiskProvider, OPENAPI_RISK_URL } from './credit-report.ts'
export type {
  DnsProbe,
  DnsProbeOptions,
  DnsProfile,
  DnsResolverOptions,
  DnsResolverPort,
} from './dns-probe.ts'
export { createDnsProbe, createDnsResolver } from './dns-probe.ts'
export { fanOut } from './fan-out.ts'
export type { GdeltClient, GdeltClientOptions, MediaArticle, MediaSearch } from './gdelt.ts'
export { createGdeltClient, GDELT_DOC_API_URL } from './gdelt.ts'
export type { FetchLike } from './http-json.ts'
export type {
  InsolvencyRecord,
  InsolvencyRegisterClient,
  InsolvencyRegisterOptions,
  InsolvencySearch,
} from './insolvency-register.ts'
export { CIR_SERVICE_URL, createInsolvencyRegisterClient } from './insolvency-register.ts'
export type { KboAddress, KboEnterprise, KboLookup, KboLookupOptions, KboNameType } from './kbo.ts'
export { createKboLookup, normaliseEnterpriseNumber } from './kbo.ts'
export type { KboFileSource, KboImporter, KboImporterOptions, KboImportStats } from './kbo-import.ts'
export { createKboImporter, kboDate, kboDirectorySource } from './kbo-import.ts'
export type {
  KboActivityRecord,
  KboAddressRecord,
  KboCodeRecord,
  KboDenominationRecord,
  KboEnterpriseBundle,
  KboEnterpriseRecord,
  KboImportMeta,
  KboImportState,
  KboStore,
  KboTable,
} from './kbo-store.ts'
export { createInMemoryKboStore } from './kbo-store.ts'
export { kboZipSource } from './kbo-zip.ts'
export type {
  KvkAddress,
  KvkClient,
  KvkClientOptions,
  KvkCompany,
  KvkSearchData,
  KvkSearchHit,
  KvkSearchQuery,
} from './kvk.ts'
export { createKvkClient, kvkDate } from './kvk.ts'
export type { RdapClient, RdapClientOptions, RdapDomain } from './rdap.ts'
export { createRdapClient, IANA_RDAP_DNS_BOOTSTRAP, normaliseDomain } from './rdap.ts'
export type { SourceCallOptions } from './source-call.ts'
export { runSourceCall } from './source-call.ts'
export type { BreakerSetting, SourceClientOptions } from './source-options.ts'
export { DEFAULT_TIMEOUT_MS } from './source-options.ts'
export type { SourceOk, SourceResult, SourceUnavailable, UnavailableReason } from './source-result.ts'
export { UpstreamFailure } from './source-result.ts'
export type { TlsCertificateInfo, TlsProbe, TlsProbeOptions } from './tls-probe.ts'
export { createTlsProbe } from './tls-probe.ts'
export type { ViesCheck, ViesCheckInput, ViesClient, ViesClientOptions } from './vies.ts'
export { createViesClient, splitVatNumber, VIES_COUNTRIES, VIES_REST_BASE_URL } from './vies.ts'
export type { PepMatch, PepQuery, PepScreen, YenteClient, YenteClientOptions } from './yente.ts'
export { createYenteClient } from './yente.ts'
