import type { ListFormat, ListKey } from './types.ts'

/**
 * A list file that cannot be trusted: malformed XML/CSV, a truncated download, missing
 * sections, zero entries. Parsers throw it instead of returning a partial list, so a refresh
 * keeps the previous version rather than screening against half a list. It is deliberately not
 * a ServiceError: the refresh job decides how to report it (alert, keep old version).
 */
export class ListParseError extends Error {
  readonly list: ListKey | 'unknown'
  readonly format: ListFormat | 'unknown'
  readonly reason: string

  constructor(
    list: ListKey | 'unknown',
    format: ListFormat | 'unknown',
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot parse ${list} list (${format}): ${reason}`, options)
    this.name = 'ListParseError'
    this.list = list
    this.format = format
    this.reason = reason
  }
}
