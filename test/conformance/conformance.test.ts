import { describe, expect, it } from 'vitest'
import { runConformance } from './conformance-run.ts'

describe('MCP conformance (@modelcontextprotocol/conformance, server scenarios)', () => {
  it('passes every applicable scenario; the scenarios that do not apply are the baseline, each with its reason', async () => {
    const lines: string[] = []
    const code = await runConformance((line) => lines.push(line))
    // The suite's own report is the failure message: which scenario, which check, why.
    expect(code, lines.join('\n')).toBe(0)
  }, 120_000)
})
