/**
 * One streamed answer: each event to a callback as it arrives, the completion at the end.
 *
 * @since 0.2.0
 * @module
 */
import { type Completion, type Event, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { type Callback, notify } from "./internal/notify.js"

/**
 * Runs a stream of events (`client.stream(request)`, or your own transport's), hands each event
 * to `onEvent` as it arrives, and gives the completion of the last `Completed` event. A stream
 * that ends without one fails with a `TruncatedStream` SvirError: calls are executable only from
 * a completion, never from a stream that was cut short. `onEvent` may return nothing or an
 * Effect; the stream waits for it.
 *
 * @example
 * ```ts
 * import type { Client } from "@svir/client"
 * import type { Request } from "@svir/core"
 * import { StreamCompletion } from "@svir/loop"
 *
 * declare const client: Client.Service
 * declare const request: Request.Request
 *
 * const done = StreamCompletion.run(client.stream(request), (event) => {
 *   if (event._tag === "TextDelta") process.stdout.write(event.text)
 * })
 * // Effect<Completion, SvirError>
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const run = <E, R, R2 = never>(
  events: Stream.Stream<Event.Event, E, R>,
  onEvent?: Callback<Event.Event, R2>,
): Effect.Effect<Completion.Completion, E | SvirError.SvirError, R | R2> =>
  Effect.suspend(() => {
    let done: Completion.Completion | undefined
    return events.pipe(
      Stream.runForEach((event) => {
        if (event._tag === "Completed") done = event.completion
        return notify(onEvent, event)
      }),
      Effect.flatMap(() =>
        done === undefined
          ? Effect.fail(SvirError.make("TruncatedStream", "the stream ended without a completion"))
          : Effect.succeed(done),
      ),
    )
  })
