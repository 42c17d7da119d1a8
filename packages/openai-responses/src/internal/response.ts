import type { Completion, Event } from "@svir/core"
import { Received, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import * as ServerErrorReading from "../ServerError.js"
import { Assembly, wire } from "./assembly.js"
import type * as Options from "./options.js"
import * as ServerError from "./serverError.js"

/**
 * Reads a whole (non-streamed) response body. D14: the body is the response a stream's terminal
 * event carries, and the stream's machine reads it so, its output items as if streamed: both ways
 * of reading an answer give the same Completion. A `failed` response, or an error body in place of
 * one, gives the error its code stands for.
 */
export const decodeResponse = (
  text: string,
  options: Options.Resolved,
): Result.Result<Completion.Completion, SvirError.SvirError> => {
  const read = Received.responseObject(text, { maxBytes: options.maxBytes, wire })
  if (Result.isFailure(read)) return Result.fail(read.failure)
  const body = read.success
  if (ServerErrorReading.isErrorBody(body)) {
    return Result.fail(ServerError.fromBody(body, "instead of an answer"))
  }
  const answer = new Assembly(options)
  const events: Array<Event.Event> = []
  let outcome: SvirError.SvirError | "completed" | undefined
  switch (body.status) {
    case "completed":
    case undefined:
      outcome = answer.terminal(body, "completed", events)
      break
    case "incomplete":
      outcome = answer.terminal(body, "incomplete", events)
      break
    case "failed":
      outcome = answer.event({ type: "response.failed", response: body }, events)
      break
    default:
      // D20: a response still queued or in progress (background mode), or cancelled, holds no
      // answer to read.
      return Result.fail(
        SvirError.make("Unsupported", "the server sent a response that has not completed", {
          serverMessage: typeof body.status === "string" ? body.status : undefined,
        }),
      )
  }
  if (outcome !== "completed") {
    return Result.fail(outcome ?? Received.foreign("a failed response with no error", wire))
  }
  return answer.complete()
}
