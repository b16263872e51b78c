import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase, testPostgresUrl } from '../../../test/support/database.ts'
import { type SolanaTestChain, startSolanaTestChain } from '../../../test/support/solana/litesvm-chain.ts'
import {
  chainPaymentConfig,
  chainPaymentTransaction,
  svmPaymentHeader,
} from '../../../test/support/solana/svm-payment.ts'
import { systemClock } from '../../context.ts'
import { createDatabase, type Database } from '../../store/database.ts'
import { createDbNonceStore } from '../ledger/nonce-table.ts'
import { PRICES } from '../pricing.ts'
import { paymentRequirementsFor } from '../requirements.ts'
import { createPaymentVerifier } from '../verify-payment.ts'
import { toStandardRequirement } from '../verify-result.ts'
import { ownFeePayerSvmScheme } from './scheme.ts'

/** A Solana payment is claimed once by its payer signature, across processes. */
describe.each(DATABASE_KINDS)('Solana replay claim in the database on %s', (kind) => {
  let chain: SolanaTestChain
  // Two "processes": on PostgreSQL two connection pools to one database; PGlite is one process.
  let first: Database
  let second: Database

  beforeAll(async () => {
    chain = await startSolanaTestChain({ payerCount: 1 })
    if (kind === 'pglite') {
      first = await openTestDatabase('pglite')
      second = first
    } else {
      const url = await testPostgresUrl()
      first = await createDatabase({ url, maxConnections: 5 })
      second = await createDatabase({ url, maxConnections: 5 })
    }
  }, 60_000)

  afterAll(async () => {
    if (second !== first) await second?.close()
    await first?.close()
  })

  it('lets exactly one of 20 concurrent verifications of one transaction through; the others get nonce_replay', async () => {
    const config = chainPaymentConfig(chain)
    const requirements = paymentRequirementsFor(config, {
      operationId: 'sanctions_screen',
      quality: 'fresh',
      resourceUrl: 'http://localhost/v1/sanctions/screen',
    })
    const verifiers = [first, second].map((database) =>
      createPaymentVerifier({
        clock: systemClock,
        schemes: {
          solana: ownFeePayerSvmScheme({
            config,
            nonceStore: createDbNonceStore(database.db, systemClock),
            feePayer: chain.feePayer.address,
            rpc: chain.rpc,
          }),
        },
      }),
    )
    const transaction = await chainPaymentTransaction(
      chain,
      chain.payers[0]!.signer,
      PRICES.sanctions_screen.x402.fresh,
    )
    const header = svmPaymentHeader(toStandardRequirement(requirements[0]!) as never, transaction)
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => verifiers[i % 2]!.verify({ header }, requirements)),
    )
    expect(results.filter((result) => result.isValid)).toHaveLength(1)
    expect(
      results.filter((result) => !result.isValid && result.invalidReason === 'nonce_replay'),
    ).toHaveLength(19)
  })
})
