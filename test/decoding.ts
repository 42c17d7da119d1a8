/**
 * Feeding a codec's decoder as a transport does, cutting bytes, and joining the pieces of the
 * events: what the tests of every codec read a decoder's outcome with.
 */
import type { Codec, Completion, Event, SvirError } from "@svir/core"

/** What a run gave: the events, the completion if the answer completed, the error if not. */
export interface Outcome {
  readonly events: ReadonlyArray<Event.Event>
  readonly completion: Completion.Completion | undefined
  readonly error: SvirError.SvirError | undefined
}

/** Feeds chunks to a decoder, as a transport does, and finishes it. */
export const feed = (decoder: Codec.StreamDecoder, chunks: Iterable<Uint8Array>): Outcome => {
  const events: Array<Event.Event> = []
  let error: SvirError.SvirError | undefined
  const take = (step: Codec.DecodeStep) => {
    events.push(...step.events)
    if (step.error !== undefined) error = step.error
  }
  for (const chunk of chunks) {
    if (decoder.done()) break
    take(decoder.push(chunk))
  }
  if (!decoder.done()) take(decoder.finish())
  const last = events.at(-1)
  return { events, completion: last?._tag === "Completed" ? last.completion : undefined, error }
}

/** The bytes cut at the given points (each taken modulo the length), in order. */
export const cutAt = (bytes: Uint8Array, points: ReadonlyArray<number>): Array<Uint8Array> => {
  if (bytes.length === 0) return [bytes]
  const cuts = [...new Set(points.map((point) => point % bytes.length))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let from = 0
  for (const cut of cuts) {
    if (cut <= from) continue
    chunks.push(bytes.subarray(from, cut))
    from = cut
  }
  chunks.push(bytes.subarray(from))
  return chunks
}

/** The pieces of each kind of event joined, and each call's pieces joined, by index. */
export const joined = (events: ReadonlyArray<Event.Event>) => {
  let text = ""
  let reasoning = ""
  let refusal = ""
  const calls: Array<{ id: string; name: string; arguments: string }> = []
  for (const event of events) {
    if (event._tag === "TextDelta") text += event.text
    else if (event._tag === "ReasoningDelta") reasoning += event.text
    else if (event._tag === "RefusalDelta") refusal += event.text
    else if (event._tag === "ToolCallDelta") {
      calls[event.index] ??= { id: "", name: "", arguments: "" }
      const call = calls[event.index]!
      if (event.id !== undefined) call.id = event.id
      call.name += event.name ?? ""
      call.arguments += event.arguments
    }
  }
  return { text, reasoning, refusal, calls }
}
