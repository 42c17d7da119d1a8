import type { Completion, Event, SvirError } from "@svir/core"
import { Json, Received } from "@svir/core"
import * as Result from "effect/Result"
import { Assembly, wire } from "./assembly.js"
import type * as Options from "./options.js"
import * as ServerError from "./serverError.js"

/**
 * Reads a whole (non-streamed) response body. D10: the body is a Message, which the stream's
 * machine reads as a `message_start` holding all the content, then `message_stop`: both ways of
 * reading an answer give the same Completion.
 */
export const decodeResponse = (
  text: string,
  options: Options.Resolved,
): Result.Result<Completion.Completion, SvirError.SvirError> => {
  const read = Received.responseObject(text, { maxBytes: options.maxBytes, wire })
  if (Result.isFailure(read)) return Result.fail(read.failure)
  const body = read.success
  if (body.type === "error" || (body.type === undefined && Json.isObject(body.error))) {
    return Result.fail(ServerError.fromBody(body, "instead of an answer"))
  }
  const answer = new Assembly(options)
  const events: Array<Event.Event> = []
  const outcome = answer.event({ type: "message_start", message: body }, events)
  if (outcome !== undefined && outcome !== "completed") return Result.fail(outcome)
  return answer.complete()
}
