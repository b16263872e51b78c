import { generatePrivateKey } from 'viem/accounts'
import { systemClock } from '../core/context.ts'
import { usd } from '../core/money.ts'
import { encodeBase64Json } from '../core/payments/challenge.ts'
import { exactEvmScheme } from '../core/payments/evm/scheme.ts'
import { createMemoryNonceStore } from '../core/payments/ledger/nonce-store.ts'
import { BASE_SEPOLIA, createPaymentConfig } from '../core/payments/networks.ts'
import { buildPaymentRequirements } from '../core/payments/requirements.ts'
import { createPaymentVerifier } from '../core/payments/verify-payment.ts'
import { toStandardRequirement } from '../core/payments/verify-result.ts'
import { signAuthorization } from '../test/support/chain/sign-authorization.ts'

const count = Math.min(Number(process.argv[2] ?? 2000), 20_000)
const ASSET = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const PAY_TO = '0x2222222222222222222222222222222222222222'
const config = createPaymentConfig({
  networks: [BASE_SEPOLIA],
  evmPayTo: PAY_TO,
  overrides: { [BASE_SEPOLIA]: { asset: ASSET, eip712: { name: 'USD Coin', version: '2' } } },
})
const requirements = buildPaymentRequirements(config, {
  amount: usd('0.11'),
  resourceUrl: 'https://api.test/v1/risk/score',
  description: 'bench',
})
const accepted = toStandardRequirement(requirements[0]!)
const payers = Array.from({ length: 20 }, () => generatePrivateKey())

console.log(`signing ${count} distinct payments...`)
const headers: string[] = []
for (let i = 0; i < count; i++) {
  const { signature, authorization } = await signAuthorization({
    key: payers[i % payers.length]!,
    to: PAY_TO,
    value: 110_000n,
    asset: ASSET,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + 280),
  })
  headers.push(encodeBase64Json({ x402Version: 2, accepted, payload: { signature, authorization } }))
}

const evmVerifier = () =>
  createPaymentVerifier({
    clock: systemClock,
    schemes: { evm: exactEvmScheme({ config, nonceStore: createMemoryNonceStore({ clock: systemClock }) }) },
  })
const verifier = evmVerifier()
// warm up JIT and the curve tables on payments that are then discarded
const warm = evmVerifier()
for (const header of headers.slice(0, 50)) await warm.verify({ header }, requirements)

const samples: number[] = []
let valid = 0
const started = performance.now()
for (const header of headers) {
  const t0 = performance.now()
  const result = await verifier.verify({ header }, requirements)
  samples.push(performance.now() - t0)
  if (result.isValid) valid++
}
const total = performance.now() - started
samples.sort((a, b) => a - b)
const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]!
console.log(
  JSON.stringify({
    payments: count,
    valid,
    medianMs: Number(pct(50).toFixed(3)),
    p99Ms: Number(pct(99).toFixed(3)),
    maxMs: Number(samples.at(-1)!.toFixed(3)),
    perSecond: Math.round((count / total) * 1000),
  }),
)
if (valid !== count) {
  console.error('some payments did not verify')
  process.exit(1)
}
