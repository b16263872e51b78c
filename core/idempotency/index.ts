export {
  type ClaimRequest,
  createIdempotencyStore,
  IDEMPOTENCY_RETRY_AFTER_SECONDS,
  IDEMPOTENCY_TAKEOVER_MS,
  type IdempotencyClaim,
  type IdempotencyStore,
  idempotencyRequestHash,
  isValidIdempotencyKey,
  type StoredAnswer,
} from './idempotency-store.ts'
