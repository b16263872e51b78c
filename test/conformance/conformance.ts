/**
 * The MCP conformance suite on its own (conformance-run.ts); `npm test` runs it as
 * conformance.test.ts.
 *
 *   npm run test:conformance
 */
import { runConformance } from './conformance-run.ts'

const code = await runConformance((line) => process.stdout.write(`${line}\n`))
console.log(
  `MCP conformance: ${code === 0 ? 'every applicable scenario passes' : 'FAILED'} (not applicable, with reasons: test/conformance/conformance-baseline.yml)`,
)
process.exitCode = code
