import { z } from 'zod'

/**
 * A zod schema as JSON Schema, without `$schema`: the one rendering behind the OpenAPI document,
 * the MCP tool list and the surface test, so the three cannot disagree.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >
  return rest
}
