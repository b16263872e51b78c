// Test-only: fake upstream servers and helpers. Never imported by production code.
export type { BusyGauge, FakeBehaviour, FakeCommonOptions, FakeMode } from './fake-behaviour.ts'
export { createBusyGauge, NORMAL, sleep } from './fake-behaviour.ts'
export type { FakeDnsOptions, FakeDnsServer, FakeZoneRecords } from './fake-dns-server.ts'
export { DNS_FAKE_ZONES, startFakeDnsServer } from './fake-dns-server.ts'
export type { FakeHandler, FakeHttpServer, FakeRequest, FakeResponse } from './fake-http-server.ts'
export { startFakeHttpServer } from './fake-http-server.ts'
export type { FakeKvkOptions, FakeKvkServer } from './fake-kvk-server.ts'
export { KVK_ERRORS, KVK_TEST_PROFILES, startFakeKvkServer } from './fake-kvk-server.ts'
export type { FakeRdapOptions, FakeRdapServer } from './fake-rdap-server.ts'
export { RDAP_ERRORS, RDAP_FAKE_DOMAINS, startFakeRdapServer } from './fake-rdap-server.ts'
export type { FakeCertificateKind, FakeTlsOptions, FakeTlsServer } from './fake-tls-server.ts'
export { startFakeTlsServer } from './fake-tls-server.ts'
export type { FakeViesOptions, FakeViesRecord } from './fake-vies-server.ts'
export {
  startFakeViesServer,
  VIES_ERROR_MESSAGES,
  VIES_FAKE_RECORDS,
  viesErrorResponse,
} from './fake-vies-server.ts'
export type { FakeWebhookReceiver, ReceivedDelivery } from './fake-webhook-receiver.ts'
export { startFakeWebhookReceiver } from './fake-webhook-receiver.ts'
export { KBO_FULL_FIXTURE_DIR, kboMemorySource } from './kbo-extract.ts'
export type { ManualClock } from './manual-clock.ts'
export { createManualClock } from './manual-clock.ts'
export type { AllFakes, FakeBackedSources, StartAllFakesOptions } from './start-all-fakes.ts'
export { createSourcesForFakes, entityCheckFanOut, startAllFakes } from './start-all-fakes.ts'
export { writeZip } from './zip-writer.ts'
