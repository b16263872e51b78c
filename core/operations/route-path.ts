/**
 * Route paths of the REST surface name their parameters `{name}` (`/v1/reports/{report_id}`),
 * lower-case snake_case like every input field. This one pattern is what the router, the MCP
 * resource URL, the OpenAPI document, the discovery examples and the facilitator's route check
 * all read.
 */
const PATH_PARAMETER = /\{([a-z_][a-z0-9_]*)\}/g

/** The `{name}` path parameters of a route path, in order. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(PATH_PARAMETER)].map((match) => match[1] as string)
}

/**
 * The path with every parameter replaced by its value, URL-encoded; a parameter whose value is
 * undefined keeps its `{name}` placeholder.
 */
export function fillPath(path: string, value: (name: string) => string | undefined): string {
  return path.replace(PATH_PARAMETER, (match, name: string) => {
    const filled = value(name)
    return filled === undefined ? match : encodeURIComponent(filled)
  })
}

/** The path in router syntax: `/v1/reports/{report_id}` -> `/v1/reports/:report_id`. */
export function colonPath(path: string): string {
  return path.replace(PATH_PARAMETER, ':$1')
}

/** The path as an anchored pattern matching one path segment per parameter. */
export function pathPattern(path: string): RegExp {
  const escaped = path
    .split(PATH_PARAMETER)
    .map((part, index) => (index % 2 === 1 ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('')
  return new RegExp(`^${escaped}$`)
}
