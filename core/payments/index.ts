export {
  type AcceptsItem,
  buildPaymentChallenge,
  encodeBase64Json,
  PAYMENT_REQUIRED_MESSAGE,
  type PaymentChallenge,
  type PaymentRequiredObject,
} from './challenge.ts'
export {
  type Charge,
  type ChargeRequest,
  chargeAmount,
  freeCharge,
  openAccountCharge,
  type PaidWith,
  type PaymentGate,
  type Receipt,
  type SettlementReceipt,
} from './charge.ts'
export {
  PAYMENT_ERROR_CODES,
  PAYMENT_ERROR_MESSAGES,
  type PaymentErrorCode,
} from './error-codes.ts'
export { EIP3009_TOKEN_ABI, TRANSFER_WITH_AUTHORIZATION_TYPES } from './evm/eip3009.ts'
export { createOnChainFundsCheck } from './evm/funds-check.ts'
export { type ExactEvmSchemeOptions, evmSettler, exactEvmScheme } from './evm/scheme.ts'
export {
  createOnChainSettler,
  type OnChainSettler,
  type OnChainSettlerOptions,
  type TransactionStatus,
} from './evm/settle.ts'
export {
  type VerifyPaymentDeps,
  type VerifyPaymentInput,
  verifyEvmPayment,
} from './evm/verify.ts'
export {
  createFacilitatorClient,
  createFacilitatorSettler,
  createFallbackSettler,
  type FacilitatorClient,
  type FacilitatorClientOptions,
  type FacilitatorVerifyResult,
  mapFacilitatorReason,
} from './facilitator/client.ts'
export { type FacilitatorRequest, parseFacilitatorRequest } from './facilitator/endpoints.ts'
export {
  createMemoryNonceStore,
  type MemoryNonceStore,
  type MemoryNonceStoreOptions,
  type NonceStore,
} from './ledger/nonce-store.ts'
export {
  BASE_MAINNET,
  BASE_SEPOLIA,
  createPaymentConfig,
  findPaymentNetwork,
  KNOWN_NETWORKS,
  MAX_SIGNATURE_LIFETIME_SECONDS,
  type NetworkKind,
  networkKindOf,
  networksOfKind,
  type PaymentConfig,
  type PaymentConfigInput,
  type PaymentNetwork,
  requirementExtra,
  SOLANA_DEVNET,
  SOLANA_MAINNET,
} from './networks.ts'
export {
  type DecodedPayment,
  type DecodeResult,
  decodePaymentHeader,
  MAX_PAYMENT_HEADER_LENGTH,
  parsePaymentPayload,
} from './payment-header.ts'
export {
  type FundsCheck,
  type FundsRefusal,
  type PaymentScheme,
  type PaymentSchemes,
  schemeAuthorizationUsed,
  schemeFundsCheck,
  schemeSettler,
} from './payment-schemes.ts'
export {
  accountPriceFor,
  buildX402Discovery,
  type DiscoveryRoute,
  KEY_UPGRADE_OPERATION_ID,
  KEY_UPGRADE_PRICES,
  type OperationPrice,
  PRICED_OPERATION_IDS,
  PRICES,
  type PricedOperationId,
  priceFor,
  type TierPrices,
  UPGRADE_TIERS,
  type UpgradeTier,
  type X402Discovery,
  type X402DiscoveryInput,
  x402PriceFor,
} from './pricing.ts'
export {
  buildPaymentRequirements,
  matchRequirement,
  type OperationRequirementsInput,
  type PaymentRequirement,
  paymentRequirementsFor,
  type RequirementsInput,
} from './requirements.ts'
export {
  buildPaymentResponse,
  failedSettleResponse,
  type PaymentResponse,
  type SettleResult,
  type Settler,
} from './settle-result.ts'
export {
  createSolanaFeePayer,
  readSolanaSecretKey,
  type SolanaFeePayer,
  solanaAddressOfSecretKey,
} from './svm/fee-payer.ts'
export { createSvmFundsCheck } from './svm/funds-check.ts'
export {
  createSolanaJsonRpc,
  type SolanaRpc,
  SolanaRpcError,
  type SolanaSignatureStatus,
} from './svm/rpc.ts'
export {
  type FacilitatedSvmSchemeOptions,
  facilitatedSvmScheme,
  type OwnFeePayerSvmSchemeOptions,
  ownFeePayerSvmScheme,
} from './svm/scheme.ts'
export { createSvmSettler, type SvmSettler } from './svm/settle.ts'
export { type VerifySvmDeps, verifySvmPayment } from './svm/verify.ts'
export {
  createPaymentVerifier,
  type PaymentSource,
  type PaymentVerifier,
  type PaymentVerifierDeps,
} from './verify-payment.ts'
export {
  type CanonicalPaymentPayload,
  type EvmAuthorization,
  type RejectedPayment,
  type StandardRequirement,
  toStandardRequirement,
  toVerifyResponse,
  type VerifiedPayment,
  type VerifyResult,
} from './verify-result.ts'
