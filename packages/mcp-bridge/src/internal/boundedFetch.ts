import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
import { type Framing, MessageReader, type Piece, tooLargeAnswer } from "./bounded.js"

/**
 * A fetch whose answers hold no message larger than `maxBytes` (DECISIONS.md D2): in an event
 * stream or a JSON body, a larger message is skipped as it arrives and the request it answers gets
 * an error answer in its place; the body of an HTTP error, which only goes into an error message,
 * is cut at `maxBytes`.
 */
export const boundedFetch =
  (maxBytes: number, baseFetch: FetchLike = fetch): FetchLike =>
  async (url, init) => {
    const response = await baseFetch(url, init)
    if (response.body === null) return response
    const type = response.headers.get("content-type") ?? ""
    const body = !response.ok
      ? response.body.pipeThrough(cutAt(maxBytes))
      : type.includes("text/event-stream")
        ? response.body.pipeThrough(bounded(maxBytes, "event"))
        : type.includes("json")
          ? response.body.pipeThrough(bounded(maxBytes, "whole"))
          : response.body
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }

const encoder = new TextEncoder()

const bounded = (maxBytes: number, framing: Framing): TransformStream<Uint8Array, Uint8Array> => {
  const reader = new MessageReader(maxBytes, framing)
  const forward = (pieces: Array<Piece>, controller: TransformStreamDefaultController) => {
    for (const piece of pieces) {
      if (!piece.tooLarge) controller.enqueue(piece.bytes)
      else if (piece.id !== undefined) {
        const answer = JSON.stringify(tooLargeAnswer(piece.id, maxBytes))
        controller.enqueue(
          encoder.encode(framing === "event" ? `event: message\ndata: ${answer}\n\n` : answer),
        )
      }
      // A message without an id (a notification) is only left out.
    }
  }
  return new TransformStream({
    transform: (chunk, controller) =>
      forward(
        reader.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
        controller,
      ),
    flush: (controller) => forward(reader.end(), controller),
  })
}

const cutAt = (maxBytes: number): TransformStream<Uint8Array, Uint8Array> => {
  let left = maxBytes
  return new TransformStream({
    transform: (chunk, controller) => {
      if (left <= 0) return
      const kept = chunk.subarray(0, left)
      left -= kept.length
      controller.enqueue(kept)
      if (left <= 0) controller.terminate()
    },
  })
}
