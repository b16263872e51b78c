/**
 * The same database handle with `onExecute` called before each `execute`: how many statements a
 * piece of code sends (tests and benchmarks).
 */
export function countExecutes<T extends object>(db: T, onExecute: () => void): T {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property === 'execute') {
        return (...args: unknown[]) => {
          onExecute()
          return (target as { execute: (...a: unknown[]) => unknown }).execute.apply(target, args)
        }
      }
      return Reflect.get(target, property, receiver)
    },
  })
}
