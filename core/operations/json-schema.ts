import { z } from 'zod'

/** Renderings already made, per schema object and direction (schemas are built once, at import). */
const rendered = { input: new WeakMap<z.ZodType, string>(), output: new WeakMap<z.ZodType, string>() }

/**
 * A zod schema as JSON Schema, without `$schema`: the one rendering behind the OpenAPI document,
 * the MCP tool list and the surface test, so the three cannot disagree. Rendering a large schema
 * takes milliseconds and every service start renders every operation, so each rendering is kept
 * (as JSON text: every caller gets its own copy and may change it).
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  let text = rendered[io].get(schema)
  if (text === undefined) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
      string,
      unknown
    >
    text = JSON.stringify(rest)
    rendered[io].set(schema, text)
  }
  return JSON.parse(text) as Record<string, unknown>
}
