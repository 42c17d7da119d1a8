import type { Completion, ToolCall } from "@svir/core"
import type * as Case from "../Case.js"
import type { Outcome } from "./outcome.js"

const contextChars = 24
const valueChars = 80

/** Shows a value in JSON, cut to a short length. */
const show = (value: unknown): string => {
  const text = value === undefined ? "none" : JSON.stringify(value)
  return text.length <= valueChars ? text : `${text.slice(0, valueChars)}…`
}

/**
 * Two strings around their first difference, so a long text that differs near its end still
 * shows where.
 */
const showStrings = (expected: string, actual: string): string => {
  let at = 0
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at++
  if (expected.length <= valueChars && actual.length <= valueChars) {
    return `expected ${show(expected)}, actual ${show(actual)}`
  }
  const start = Math.max(0, at - contextChars)
  const around = (text: string): string =>
    `${start > 0 ? "…" : ""}${show(text.slice(start, at + contextChars)).slice(0, valueChars)}${at + contextChars < text.length ? "…" : ""}`
  return `first difference at ${at}: expected ${around(expected)}, actual ${around(actual)}`
}

/** A completion in a few words, for an outcome that was not expected at all. */
export const summarize = (outcome: Outcome): string => {
  switch (outcome._tag) {
    case "Completed": {
      const { text, finish, calls } = outcome.completion
      return `ok (finish ${finish}, text ${show(text)}, ${calls.length} call${calls.length === 1 ? "" : "s"})`
    }
    case "Failed":
      return `error ${outcome.kind} (${outcome.message.slice(0, valueChars)})${outcome.released ? " after a Completed event" : ""}`
    case "Broken":
      return outcome.problem
  }
}

const textFields = ["id", "model", "text", "reasoning", "refusal", "finish"] as const

const compareCalls = (
  expected: ReadonlyArray<Case.ExpectedCall>,
  actual: ReadonlyArray<ToolCall.ToolCall>,
): Array<string> => {
  if (expected.length !== actual.length) {
    return [
      `calls: expected ${expected.length}, actual ${actual.length} ${show(actual.map((call) => `${call.name}(${call.arguments})`))}`,
    ]
  }
  return expected.flatMap((want, i) => {
    const got = actual[i]!
    const lines: Array<string> = []
    if (want.id === "*" ? got.id === "" : want.id !== undefined && want.id !== got.id) {
      lines.push(
        `calls[${i}].id: expected ${want.id === "*" ? "any non-empty id" : show(want.id)}, actual ${show(got.id)}`,
      )
    }
    if (want.name !== got.name) {
      lines.push(`calls[${i}].name: expected ${show(want.name)}, actual ${show(got.name)}`)
    }
    const args = want.arguments
    if (typeof args === "string" && args !== got.arguments) {
      lines.push(`calls[${i}].arguments: ${showStrings(args, got.arguments)}`)
    } else if (Array.isArray(args) && !args.includes(got.arguments)) {
      lines.push(
        `calls[${i}].arguments: expected any of ${show(args)}, actual ${show(got.arguments)}`,
      )
    }
    return lines
  })
}

const usageKeys = ["input", "output", "total", "reasoning"] as const

const compareUsage = (
  expected: Case.ExpectedCompletion["usage"],
  actual: Completion.Usage | undefined,
): Array<string> => {
  if (expected === undefined) return []
  if (expected === null) {
    return actual === undefined ? [] : [`usage: expected none, actual ${show(actual)}`]
  }
  if (actual === undefined) return [`usage: expected ${show(expected)}, actual none`]
  return usageKeys.flatMap((key) =>
    expected[key] === undefined || expected[key] === actual[key]
      ? []
      : [`usage.${key}: expected ${expected[key]}, actual ${show(actual[key])}`],
  )
}

const compareCompletion = (
  expected: Case.ExpectedCompletion,
  actual: Completion.Completion,
): Array<string> => [
  ...textFields.flatMap((field) => {
    const want = expected[field]
    // A completion without an id or model reads as an empty one.
    const got = actual[field] ?? ""
    if (want === undefined || want === got) return []
    return [
      field === "finish"
        ? `${field}: expected ${show(want)}, actual ${show(got)}`
        : `${field}: ${showStrings(want, got)}`,
    ]
  }),
  ...(expected.calls === undefined ? [] : compareCalls(expected.calls, actual.calls)),
  ...compareUsage(expected.usage, actual.usage),
]

/** What differs between an expectation and an outcome; empty when the outcome fits. */
export const compare = (expected: Case.Expectation, actual: Outcome): ReadonlyArray<string> => {
  if ("error" in expected) {
    if (actual._tag === "Failed" && actual.kind === expected.error) {
      return actual.released
        ? [`calls released on error: a Completed event came before the ${actual.kind} error`]
        : []
    }
    return [`expected error ${expected.error}, actual ${summarize(actual)}`]
  }
  if (actual._tag !== "Completed") return [`expected ok, actual ${summarize(actual)}`]
  return compareCompletion(expected.ok, actual.completion)
}

/**
 * A completed outcome as an exact expectation, to compare the outcomes of two chunkings. A field the
 * completion leaves out becomes `""` so that one chunking giving it and another not is a
 * difference. A call id the case's expectation gives as `"*"` stays `"*"`.
 */
export const exactly = (
  outcome: Outcome & { readonly _tag: "Completed" },
  expected: Case.Expectation,
): Case.Expectation => {
  const completion = outcome.completion
  // A call whose id the case gives as "*" may get a made-up id, different on every run.
  const madeUp = "ok" in expected ? (expected.ok.calls ?? []) : []
  const usage = completion.usage
  return {
    ok: {
      id: completion.id ?? "",
      model: completion.model ?? "",
      text: completion.text,
      reasoning: completion.reasoning,
      refusal: completion.refusal,
      finish: completion.finish,
      calls: completion.calls.map((call, i) => ({
        id: madeUp[i]?.id === "*" ? "*" : call.id,
        name: call.name,
        arguments: call.arguments,
      })),
      usage:
        usage === undefined
          ? null
          : {
              input: usage.input,
              output: usage.output,
              total: usage.total,
              ...(usage.reasoning === undefined ? {} : { reasoning: usage.reasoning }),
            },
    },
  }
}
