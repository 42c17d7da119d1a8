import type { Completion, Event } from "@svir/core"
import { Json, SvirError } from "@svir/core"
import * as Result from "effect/Result"
import { Assembly, notMessages, tooDeep } from "./assembly.js"
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
  // A string has at most as many UTF-16 units as its UTF-8 bytes, so this never refuses too early.
  if (text.length > options.maxBytes) {
    return Result.fail(
      SvirError.make(
        "ResponseLimit",
        `the response is longer than ${options.maxBytes} bytes (the maxBytes option)`,
        { limit: "maxBytes", max: options.maxBytes },
      ),
    )
  }
  const parsed = Json.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  if (Result.isFailure(parsed)) {
    return Result.fail(
      parsed.failure.reason === "TooDeep"
        ? tooDeep("a response")
        : SvirError.make("Protocol", "the response is not JSON", { serverMessage: text }),
    )
  }
  const body = parsed.success
  if (!Json.isObject(body)) return Result.fail(notMessages("a response that is not a JSON object"))
  if (body.type === "error" || (body.type === undefined && Json.isObject(body.error))) {
    return Result.fail(ServerError.fromBody(body, "instead of an answer"))
  }
  const answer = new Assembly(options)
  const events: Array<Event.Event> = []
  const outcome = answer.event({ type: "message_start", message: body }, events)
  if (outcome !== undefined && outcome !== "completed") return Result.fail(outcome)
  return answer.complete()
}
