import type { Completion, ToolCall } from "@svir/core"
import type * as Case from "../Case.js"
import type { EncodeOutcome, Outcome } from "./outcome.js"

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
const summarize = (outcome: Outcome): string => {
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

const textFields = ["id", "model", "text", "refusal", "finish"] as const

const compareReasoning = (
  expected: Case.ExpectedCompletion["reasoning"],
  actual: Completion.Completion,
): Array<string> => {
  if (expected === undefined) return []
  if (typeof expected === "string") {
    return expected === actual.reasoning
      ? []
      : [`reasoning: ${showStrings(expected, actual.reasoning)}`]
  }
  // A codec built against an older core may leave reasoningBySource out.
  const bySource = actual.reasoningBySource ?? []
  if (expected.length !== bySource.length) {
    return [
      `reasoning: expected ${expected.length} source${expected.length === 1 ? "" : "s"} ${show(expected)}, actual ${bySource.length} ${show(bySource)}`,
    ]
  }
  return expected.flatMap((want, i) => {
    const got = bySource[i]!
    return [
      ...(want.source === got.source
        ? []
        : [`reasoning[${i}].source: expected ${show(want.source)}, actual ${show(got.source)}`]),
      ...(want.text === got.text
        ? []
        : [`reasoning[${i}].text: ${showStrings(want.text, got.text)}`]),
    ]
  })
}

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

// Each key of a case's usage, and the field of `Completion.Usage` it is compared with.
const usageKeys = [
  ["input", "input"],
  ["output", "output"],
  ["total", "total"],
  ["reasoning", "reasoning"],
  ["cached_input", "cachedInput"],
] as const

const compareUsage = (
  expected: Case.ExpectedCompletion["usage"],
  actual: Completion.Usage | undefined,
): Array<string> => {
  if (expected === undefined) return []
  if (expected === null) {
    return actual === undefined ? [] : [`usage: expected none, actual ${show(actual)}`]
  }
  if (actual === undefined) return [`usage: expected ${show(expected)}, actual none`]
  return usageKeys.flatMap(([key, field]) =>
    expected[key] === undefined || expected[key] === actual[field]
      ? []
      : [`usage.${key}: expected ${expected[key]}, actual ${show(actual[field])}`],
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
  ...compareReasoning(expected.reasoning, actual),
  ...(expected.calls === undefined ? [] : compareCalls(expected.calls, actual.calls)),
  ...compareUsage(expected.usage, actual.usage),
]

const compareError = (
  expected: Extract<Case.Expectation, { readonly error: Case.ErrorKind }>,
  actual: Outcome & { readonly _tag: "Failed" },
): Array<string> => {
  const lines: Array<string> = []
  if (actual.released) {
    lines.push(`calls released on error: a Completed event came before the ${actual.kind} error`)
  }
  for (const field of ["text", "reasoning"] as const) {
    const want = expected.partial?.[field]
    if (want !== undefined && want !== actual.partial[field]) {
      lines.push(`partial.${field}: ${showStrings(want, actual.partial[field])}`)
    }
  }
  const message = expected.message
  if (message !== undefined && message !== actual.serverMessage) {
    lines.push(
      actual.serverMessage === undefined
        ? `message: expected ${show(message)}, actual none`
        : `message: ${showStrings(message, actual.serverMessage)}`,
    )
  }
  return lines
}

const compareVisible = (
  expected: ReadonlyArray<boolean> | undefined,
  actual: ReadonlyArray<boolean> | undefined,
): Array<string> => {
  if (expected === undefined || actual === undefined) return []
  if (expected.length !== actual.length) {
    return [
      `visible_by_chunk: expected ${expected.length} pushes, actual ${actual.length} ${show(actual)}`,
    ]
  }
  const differ = expected.flatMap((want, i) => (want === actual[i] ? [] : [i]))
  return differ.length === 0
    ? []
    : [
        `visible_by_chunk: expected ${show(expected)}, actual ${show(actual)} (chunk ${differ.join(", ")})`,
      ]
}

/**
 * What differs between an expectation and an outcome; empty when the outcome fits. `visible` is
 * per push whether it delivered text or reasoning, given only where the case's chunks were fed as
 * given.
 */
export const compare = (
  expected: Case.Expectation,
  actual: Outcome,
  visible?: ReadonlyArray<boolean>,
): ReadonlyArray<string> => {
  if ("error" in expected) {
    if (actual._tag === "Failed" && actual.kind === expected.error) {
      return [
        ...compareError(expected, actual),
        ...compareVisible(expected.visible_by_chunk, visible),
      ]
    }
    return [`expected error ${expected.error}, actual ${summarize(actual)}`]
  }
  if (actual._tag !== "Completed") return [`expected ok, actual ${summarize(actual)}`]
  return [
    ...compareCompletion(expected.ok, actual.completion),
    ...compareVisible(expected.visible_by_chunk, visible),
  ]
}

/**
 * A completed outcome as an exact expectation, to compare the outcomes of two chunkings. A field the
 * completion leaves out becomes `""` so that one chunking giving it and another not is a
 * difference. A call id the case's expectation gives as `"*"` stays `"*"`. Reasoning is compared
 * by source (see {@link agreeing} for all of it joined).
 */
const exactly = (
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
      reasoning: completion.reasoningBySource ?? [],
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
              ...(usage.cachedInput === undefined ? {} : { cached_input: usage.cachedInput }),
            },
    },
  }
}

/** What differs between the outcome of one feeding and that of another, the reference. */
export const agreeing = (
  reference: Outcome,
  other: Outcome,
  expected: Case.Expectation,
): ReadonlyArray<string> => {
  if (reference._tag === "Completed") {
    const lines = [...compare(exactly(reference, expected), other)]
    if (
      other._tag === "Completed" &&
      other.completion.reasoning !== reference.completion.reasoning
    ) {
      lines.push(
        `reasoning: ${showStrings(reference.completion.reasoning, other.completion.reasoning)}`,
      )
    }
    return lines
  }
  if (reference._tag === "Broken") {
    return other._tag === "Broken" && other.problem === reference.problem
      ? []
      : [`expected ${summarize(reference)}, actual ${summarize(other)}`]
  }
  if (other._tag !== "Failed" || other.kind !== reference.kind) {
    return [`expected ${summarize(reference)}, actual ${summarize(other)}`]
  }
  const lines = compareError(
    {
      error: reference.kind,
      partial: reference.partial,
      ...(reference.serverMessage === undefined ? {} : { message: reference.serverMessage }),
    },
    { ...other, released: false },
  )
  if (other.released !== reference.released) lines.push(`released: expected ${reference.released}`)
  if (reference.serverMessage === undefined && other.serverMessage !== undefined) {
    lines.push(`message: expected none, actual ${show(other.serverMessage)}`)
  }
  return lines
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const keyPath = (path: string, key: string): string =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`

const maxBodyLines = 10

/**
 * Where two JSON values differ, one line per difference with its path (`body.messages[0].content`),
 * at most a few lines. Object key order does not matter; array order does.
 */
const jsonDiff = (expected: unknown, actual: unknown, path: string, lines: Array<string>): void => {
  if (lines.length >= maxBodyLines) return
  if (isObject(expected) && isObject(actual)) {
    for (const key of Object.keys(expected)) {
      if (!(key in actual))
        lines.push(`${keyPath(path, key)}: expected ${show(expected[key])}, actual none`)
      else jsonDiff(expected[key], actual[key], keyPath(path, key), lines)
    }
    for (const key of Object.keys(actual)) {
      if (!(key in expected))
        lines.push(`${keyPath(path, key)}: expected none, actual ${show(actual[key])}`)
    }
    return
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    // Items of arrays of other lengths do not line up: one line says what each holds.
    if (expected.length !== actual.length) {
      lines.push(
        `${path}: expected ${expected.length} items ${show(expected)}, actual ${actual.length} ${show(actual)}`,
      )
      return
    }
    for (const [i, item] of expected.entries()) jsonDiff(item, actual[i], `${path}[${i}]`, lines)
    return
  }
  if (typeof expected === "string" && typeof actual === "string") {
    if (expected !== actual) lines.push(`${path}: ${showStrings(expected, actual)}`)
    return
  }
  if (!Object.is(expected, actual) && JSON.stringify(expected) !== JSON.stringify(actual)) {
    lines.push(`${path}: expected ${show(expected)}, actual ${show(actual)}`)
  }
}

/** What differs between an encoder case's expectation and what encoding gave. */
export const compareEncoded = (
  expected: Case.EncoderExpectation,
  actual: EncodeOutcome,
): ReadonlyArray<string> => {
  if ("error" in expected) {
    if (actual._tag === "Failed" && actual.kind === expected.error) return []
    return [
      `expected error ${expected.error}, actual ${actual._tag === "Encoded" ? `a body ${show(actual.body)}` : summarize(actual)}`,
    ]
  }
  if (actual._tag !== "Encoded") return [`expected a body, actual ${summarize(actual)}`]
  const lines: Array<string> = []
  jsonDiff(expected.body, actual.body, "body", lines)
  if (actual.again !== actual.text) {
    lines.push(`encoding the same request again: ${showStrings(actual.text, actual.again)}`)
  }
  return lines
}
