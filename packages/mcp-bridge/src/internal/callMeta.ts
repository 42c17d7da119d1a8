/**
 * The `_meta` key under which a `tools/call` carries the call's idempotency key: a name under
 * svir's own prefix, since the MCP specification has no field for it (D54).
 */
const idempotencyKeyMeta = "svir/idempotencyKey"

/** What a `tools/call` adds to its params: `_meta` when it has something to carry. */
export interface CallMeta {
  readonly _meta?: Readonly<Record<string, string>>
}

/**
 * The `_meta` of a `tools/call`: the span's `traceparent` (D43) and the call's idempotency key
 * (D54), each only when there is one, and no `_meta` at all when there is neither. The SDK adds
 * its `progressToken` beside them.
 */
export const callMeta = (
  traceparent: string | undefined,
  idempotencyKey: string | undefined,
): CallMeta => {
  if (traceparent === undefined && idempotencyKey === undefined) return {}
  const meta: Record<string, string> = {}
  if (traceparent !== undefined) meta.traceparent = traceparent
  if (idempotencyKey !== undefined) meta[idempotencyKeyMeta] = idempotencyKey
  return { _meta: meta }
}
