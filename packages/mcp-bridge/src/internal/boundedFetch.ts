import type { FetchLike } from "@modelcontextprotocol/client"
import { type Framing, MessageReader, type Piece, tooLargeAnswer } from "./bounded.js"

/**
 * A fetch whose answers hold no message larger than `maxBytes` (DECISIONS.md D2): in an event
 * stream or a JSON body, a larger message is skipped as it arrives and the request it answers gets
 * an error answer in its place; the body of an HTTP error, which only goes into an error message,
 * is cut at `maxBytes`. Each request gets a signal of its own, tied to the one it was given for as
 * long as the request lasts (see {@link ownSignal}).
 */
export const boundedFetch =
  (maxBytes: number, baseFetch: FetchLike = fetch): FetchLike =>
  async (url, init) => {
    const own = init?.signal == null ? undefined : ownSignal(init.signal)
    let response: Response
    try {
      response = await baseFetch(url, own === undefined ? init : { ...init, signal: own.signal })
    } catch (error) {
      own?.release()
      throw error
    }
    if (response.body === null) {
      own?.release()
      return response
    }
    const type = response.headers.get("content-type") ?? ""
    const body = !response.ok
      ? response.body.pipeThrough(cutAt(maxBytes))
      : type.includes("text/event-stream")
        ? response.body.pipeThrough(bounded(maxBytes, "event"))
        : type.includes("json")
          ? response.body.pipeThrough(bounded(maxBytes, "whole"))
          : response.body
    return new Response(own === undefined ? body : untilDone(body, own.release), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }

/** The requests in flight on each signal given to the fetch, by the controller of their own. */
const inFlight = new WeakMap<AbortSignal, Set<AbortController>>()

/**
 * A signal for one request that aborts when `given` does, and `release` to untie it when the
 * request ends. The SDK's Streamable HTTP transport gives every request the same signal, and
 * Node 20's fetch adds an `abort` listener to it per request that only a garbage collection
 * removes: past 1,500, each request printed a `MaxListenersExceededWarning` (D34). Here
 * `given` gets one listener however many requests it serves, and the fetch's listeners go to
 * signals that end with their request.
 */
const ownSignal = (given: AbortSignal): { signal: AbortSignal; release: () => void } => {
  const controller = new AbortController()
  if (given.aborted) {
    controller.abort(given.reason)
    return { signal: controller.signal, release: () => undefined }
  }
  const requests = requestsOn(given)
  requests.add(controller)
  return { signal: controller.signal, release: () => requests.delete(controller) }
}

/** The requests in flight on `given`, with the one listener that aborts them all. */
const requestsOn = (given: AbortSignal): Set<AbortController> => {
  const known = inFlight.get(given)
  if (known !== undefined) return known
  const requests = new Set<AbortController>()
  inFlight.set(given, requests)
  const abortAll = () => {
    for (const request of requests) request.abort(given.reason)
    requests.clear()
  }
  given.addEventListener("abort", abortAll, { once: true })
  return requests
}

/** `body` as it is, with `done` told once it has ended, failed or been cancelled. */
const untilDone = (
  body: ReadableStream<Uint8Array>,
  done: () => void,
): ReadableStream<Uint8Array> => {
  const reader = body.getReader()
  return new ReadableStream({
    pull: async (controller) => {
      try {
        const next = await reader.read()
        if (!next.done) {
          controller.enqueue(next.value)
          return
        }
        done()
        controller.close()
      } catch (error) {
        done()
        controller.error(error)
      }
    },
    cancel: (reason) => {
      done()
      return reader.cancel(reason)
    },
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
