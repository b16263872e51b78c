import { preparedRunner } from '../../core/store/database.ts'

/**
 * The same database handle with `onExecute` called before each `execute` and each prepared
 * statement (core/store/database.ts executePrepared): how many statements a piece of code sends
 * (tests and benchmarks).
 */
export function countExecutes<T extends object>(db: T, onExecute: () => void): T {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property === 'execute' || property === preparedRunner) {
        const run = Reflect.get(target, property, receiver) as (...args: unknown[]) => unknown
        return (...args: unknown[]) => {
          onExecute()
          return run.apply(target, args)
        }
      }
      return Reflect.get(target, property, receiver)
    },
  })
}
