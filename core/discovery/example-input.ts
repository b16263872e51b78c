import type { AnyOperation } from '../operations/define.ts'
import { toJsonSchema } from '../operations/json-schema.ts'

/**
 * Example values by field name. A new operation whose required field is not here gets a value
 * from its JSON schema (enum, type); add a line here when that value does not validate.
 */
const FIELD_EXAMPLES: Readonly<Record<string, unknown>> = {
  entity_name: 'Acme Trading B.V.',
  name: 'Acme Trading B.V.',
  country: 'NL',
  kvk_number: '68750110',
  cbe_number: '0403.170.701',
  registration_number: '68750110',
  entity_id: 'acme-nl-001',
  vat_number: 'NL003028112B01',
  domain: 'example.com',
  iban: 'NL91ABNA0417164300',
  wallet: '0x4675c7e5baafbffbca748158becba61ef3b0a263',
  wallet_address: '0x4675c7e5baafbffbca748158becba61ef3b0a263',
  agent_id: '0x4675c7e5baafbffbca748158becba61ef3b0a263',
  entity_hash: 'a'.repeat(64),
  email: 'ops@example.com',
  url: 'https://hooks.example.com/validation',
  events: ['sanctions.match.new'],
  confirm: true,
  subject: 'Acme Trading B.V.',
}

/**
 * Optional fields worth showing in an example because they change what the call does (a purge
 * needs one of `subject` or `all`: the example erases one subject, never everything).
 */
const SHOWN_OPTIONAL = new Set(['country', 'entity_name', 'subject'])

function exampleValue(name: string, schema: Record<string, unknown> | undefined): unknown {
  if (name in FIELD_EXAMPLES) return FIELD_EXAMPLES[name]
  if (!schema) return 'example'
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  if (schema.const !== undefined) return schema.const
  switch (schema.type) {
    case 'boolean':
      return true
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1
    case 'array':
      return []
    case 'object':
      return {}
    default:
      return 'example'
  }
}

/** An input for `operation` built from its schema's required fields (plus `country` where offered). */
export function exampleInputOf(operation: AnyOperation): Record<string, unknown> {
  return exampleInputFor(toJsonSchema(operation.input, 'input'))
}

/** An input built from an input JSON Schema's required fields (plus `country` where offered). */
export function exampleInputFor(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>
  const required = new Set((schema.required as string[] | undefined) ?? [])
  const example: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(properties)) {
    if (required.has(name) || SHOWN_OPTIONAL.has(name)) example[name] = exampleValue(name, property)
  }
  return example
}
