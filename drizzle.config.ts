import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './core/store/tables/*.ts',
  out: './core/store/migrations',
})
