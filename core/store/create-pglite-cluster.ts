/**
 * `node core/store/create-pglite-cluster.ts <folder>`: creates a PGlite cluster in the folder and
 * applies the migrations, then exits. Run by createDatabase on a service's first start, so the
 * memory that creating a cluster takes is given back to the system when this process exits
 * instead of staying with the service (database.ts, createClusterApart).
 */
import { createPgliteCluster } from './database.ts'

const dataDir = process.argv[2]
if (!dataDir) {
  console.error('usage: create-pglite-cluster.ts <data folder>')
  process.exit(2)
}
try {
  await createPgliteCluster(dataDir)
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error))
  process.exit(1)
}
