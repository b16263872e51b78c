import { z } from 'zod'

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value))

/**
 * Every environment variable the service reads, parsed once (CONVENTIONS 2). The README's
 * configuration table lists the same names and defaults.
 */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
  ),
  ADMIN_API_KEY: optionalString.pipe(z.string().min(24, 'use at least 24 characters').optional()),
  PUBLIC_BASE_URL: optionalString.pipe(z.url().optional()),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
})

export type Config = z.infer<typeof ConfigSchema>

/** Parses the environment; a bad value stops start-up with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`)
  }
  return parsed.data
}
