/**
 * The abort signal of one call, with what the SDK's `Protocol.request` reads of a signal:
 * `throwIfAborted()` and `addEventListener("abort", ...)` when the request is sent, `aborted` when
 * its answer comes, `reason` once aborted. A Node `AbortController` with the SDK's listener costs
 * about 5 µs, which made the SDK's own call over stdio 1.26 times as costly (DECISIONS.md D10).
 * `abort` gives the reason a Node controller gives, so the SDK tells the server the same.
 */
export class CallSignal {
  aborted = false
  reason: unknown = undefined
  private listeners: Array<() => void> = []

  throwIfAborted(): void {
    if (this.aborted) throw this.reason
  }

  addEventListener(type: string, listener: () => void): void {
    if (type === "abort") this.listeners.push(listener)
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type === "abort") this.listeners = this.listeners.filter((kept) => kept !== listener)
  }

  abort(): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = new DOMException("This operation was aborted", "AbortError")
    for (const listener of this.listeners) listener()
  }

  /** The signal as the SDK's options type it. */
  get asAbortSignal(): AbortSignal {
    return this as unknown as AbortSignal
  }
}
