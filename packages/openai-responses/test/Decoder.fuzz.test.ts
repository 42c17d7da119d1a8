import { assert, describe, it } from "@effect/vitest"
import { type Codec, type Completion, type Event, Json, SvirError } from "@svir/core"
import { Cause, Effect, Exit } from "effect"
import * as fc from "fast-check"
import { cutAt, joined } from "../../../test/decoding.js"
import { ResponsesCodec, ServerError } from "../src/index.js"

const runs = Number(process.env.SVIR_FUZZ_RUNS ?? 2_000)
/** Long runs (`npm run fuzz`) take minutes a property, past any timeout worth setting. */
const timeout = process.env.SVIR_FUZZ_RUNS === undefined ? 120_000 : 0

type Mode = "strict" | "lenient"
type Data = { [key: string]: unknown }

// The words of the wire: few, so that items collide, calls repeat ids and lookups by id go astray.
const itemIds = ["msg_1", "fc_1", "rs_1", "item_2"] as const
const callIds = ["call_a", "call_b", "call_c"] as const
const names = ["weather", "time"] as const
const fragments = ['{"city":', '"Paris"', "}", "{}", "", " ", '"é\\n"'] as const
/** Output indexes that are not whole numbers from 0. */
const oddIndexes = [-1, 1.5, 0.5, "0", "1", true, null, {}, [], 1e21, 1e300, 2 ** 53] as const

const nested = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value }
  return value
}

/** Values of the wrong type, huge numbers, and values nested around the depth bound (D25). */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      2 ** 53 + 1,
      "",
      "x",
      [],
      {},
      "response.completed",
      "function_call",
      ...oddIndexes,
    ),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.integer({ min: 122, max: 130 }).map(nested) },
  { weight: 1, arbitrary: fc.constant(2_000).map(nested) },
)

/** `true` one time in `n`. */
const oneIn = (n: number) => fc.nat({ max: n - 1 }).map((pick) => pick === 0)

const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("Hi", " there", ".", "é", "🙂", "\n\n", "") },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
)
const pieces = fc.array(piece, { maxLength: 3 })

/** Where an item is: mostly its place in the answer, now and then another's, or no index at all. */
const place = fc.oneof(
  { weight: 30, arbitrary: fc.constant<unknown>(undefined) },
  { weight: 1, arbitrary: fc.nat({ max: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(...oddIndexes) },
)

/** How an item is streamed. */
const common = {
  id: fc.constantFrom(...itemIds),
  at: place,
  // D26: deltas that name their item by `item_id` only.
  byId: oneIn(12),
  // The part events (`content_part.added`, `reasoning_summary_part.added`) and the `.done` ones.
  partEvents: fc.boolean(),
  doneEvents: oneIn(3),
}

const messageItem = fc.record({
  kind: fc.constant("message" as const),
  ...common,
  parts: fc.array(
    fc.record({
      refusal: oneIn(12),
      pieces,
      // Log probabilities with the deltas, and now and then others in the item done (D27).
      logprobs: fc.constantFrom("none", "none", "none", "none", "same", "other"),
    }),
    { minLength: 1, maxLength: 2 },
  ),
})
const callItem = fc.record({
  kind: fc.constant("function_call" as const),
  ...common,
  callId: fc.constantFrom(...callIds),
  name: fc.constantFrom(...names),
  pieces: fc.array(fc.constantFrom(...fragments), { maxLength: 4 }),
  // Done with no `arguments` field, which D15 reads as blank arguments.
  bare: oneIn(8),
})
const reasoningItem = fc.record({
  kind: fc.constant("reasoning" as const),
  ...common,
  summary: fc.array(pieces, { maxLength: 2 }),
  content: fc.option(fc.array(pieces, { minLength: 1, maxLength: 2 }), {
    freq: 4,
    nil: undefined,
  }),
  encrypted: fc.option(fc.constantFrom("gAAAA1", "gAAAA2"), { nil: undefined }),
})

type Spec =
  | (typeof messageItem extends fc.Arbitrary<infer A> ? A : never)
  | (typeof callItem extends fc.Arbitrary<infer A> ? A : never)
  | (typeof reasoningItem extends fc.Arbitrary<infer A> ? A : never)

const item: fc.Arbitrary<Spec> = fc.oneof(
  { weight: 3, arbitrary: messageItem },
  { weight: 4, arbitrary: callItem },
  { weight: 2, arbitrary: reasoningItem },
)

const tokenOf = (text: string) => ({
  token: text,
  logprob: -0.25,
  bytes: [...new TextEncoder().encode(text)],
  top_logprobs: [],
})

/** The item as `output_item.done` gives it: the pieces joined. */
const finalOf = (spec: Spec): Data => {
  switch (spec.kind) {
    case "message":
      return {
        type: "message",
        id: spec.id,
        role: "assistant",
        status: "completed",
        content: spec.parts.map((part) =>
          part.refusal
            ? { type: "refusal", refusal: part.pieces.join("") }
            : {
                type: "output_text",
                text: part.pieces.join(""),
                annotations: [],
                ...(part.logprobs !== "none" && {
                  logprobs: part.pieces.map((text) =>
                    tokenOf(part.logprobs === "other" ? `${text}?` : text),
                  ),
                }),
              },
        ),
      }
    case "function_call":
      return {
        type: "function_call",
        id: spec.id,
        call_id: spec.callId,
        name: spec.name,
        ...(!spec.bare && { arguments: spec.pieces.join("") }),
        status: "completed",
      }
    case "reasoning":
      return {
        type: "reasoning",
        id: spec.id,
        summary: spec.summary.map((part) => ({ type: "summary_text", text: part.join("") })),
        ...(spec.content !== undefined && {
          content: spec.content.map((part) => ({ type: "reasoning_text", text: part.join("") })),
        }),
        ...(spec.encrypted !== undefined && { encrypted_content: spec.encrypted }),
      }
  }
}

/** The item as `output_item.added` gives it: nothing streamed yet. */
const addedOf = (final: Data): Data => {
  if (final.type === "message") return { ...final, status: "in_progress", content: [] }
  if (final.type === "function_call") return { ...final, status: "in_progress", arguments: "" }
  return { ...final, summary: [], ...(final.content !== undefined && { content: [] }) }
}

type Shape = "streamed" | "whole" | "notDone" | "terminalOnly"

/** The events of one item at its output index, in the order the API sends them. */
const itemEvents = (spec: Spec, index: unknown, shape: Shape): Array<Data> => {
  const final = finalOf(spec)
  if (shape === "terminalOnly") return []
  const where = spec.byId ? { item_id: spec.id } : { item_id: spec.id, output_index: index }
  const events: Array<Data> = [
    { type: "response.output_item.added", output_index: index, item: addedOf(final) },
  ]
  const streamed = shape !== "whole"
  if (streamed && spec.kind === "message") {
    spec.parts.forEach((part, content_index) => {
      const kind = part.refusal ? "refusal" : "output_text"
      const at = { ...where, content_index }
      if (spec.partEvents) {
        const empty = part.refusal ? { refusal: "" } : { text: "", annotations: [] }
        events.push({ type: "response.content_part.added", ...at, part: { type: kind, ...empty } })
      }
      for (const text of part.pieces) {
        events.push({
          type: `response.${kind}.delta`,
          ...at,
          delta: text,
          ...(!part.refusal && { logprobs: part.logprobs === "none" ? [] : [tokenOf(text)] }),
        })
      }
      if (spec.doneEvents) {
        events.push({ type: `response.${kind}.done`, ...at, text: part.pieces.join("") })
        events.push({ type: "response.content_part.done", ...at, part: {} })
      }
    })
  } else if (streamed && spec.kind === "function_call") {
    for (const delta of spec.pieces) {
      events.push({ type: "response.function_call_arguments.delta", ...where, delta })
    }
    if (spec.doneEvents) {
      events.push({
        type: "response.function_call_arguments.done",
        ...where,
        arguments: final.arguments,
      })
    }
  } else if (streamed && spec.kind === "reasoning") {
    spec.summary.forEach((part, summary_index) => {
      if (spec.partEvents) {
        events.push({
          type: "response.reasoning_summary_part.added",
          ...where,
          summary_index,
          part: { type: "summary_text", text: "" },
        })
      }
      for (const delta of part) {
        events.push({
          type: "response.reasoning_summary_text.delta",
          ...where,
          summary_index,
          delta,
        })
      }
    })
    spec.content?.forEach((part, content_index) => {
      for (const delta of part) {
        events.push({ type: "response.reasoning_text.delta", ...where, content_index, delta })
      }
    })
  }
  if (shape !== "notDone") {
    events.push({ type: "response.output_item.done", output_index: index, item: final })
  }
  return events
}

/** How the answer ends. */
const ending = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ type: "response.completed" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant("response.incomplete" as const),
      reason: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom<unknown>("max_output_tokens", "content_filter") },
        { weight: 1, arbitrary: fc.constantFrom<unknown>("other", undefined, 3) },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("response.failed" as const),
      error: fc.constantFrom<unknown>(
        { code: "server_error", message: "boom" },
        { code: "rate_limit_exceeded", message: "slow down" },
        null,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { type: "error" as const, code: "server_error", message: "boom" },
      { type: "error" as const, error: { type: "invalid_request_error", code: "nope" } },
    ),
  },
  { weight: 1, arbitrary: fc.constant({ type: "none" as const }) },
)

/** What the terminal response's `output` says of the streamed items (D16). */
const terminalOutput = fc.oneof(
  { weight: 8, arbitrary: fc.constant("same" as const) },
  { weight: 2, arbitrary: fc.constant("empty" as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "missing" as const,
      "extra" as const,
      "changed" as const,
      "reversed" as const,
    ),
  },
)

const usage = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(fc.nat({ max: 5_000 }), fc.nat({ max: 5_000 }), fc.boolean())
      .map(([input, output, details]) => ({
        input_tokens: input,
        output_tokens: output,
        total_tokens: input + output,
        ...(details && {
          input_tokens_details: { cached_tokens: 0 },
          output_tokens_details: { reasoning_tokens: output },
        }),
      })),
  },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: oddValue.map((input_tokens) => ({ input_tokens, output_tokens: 1 })) },
)

/** Where a value of the wrong type goes, as a path into an event; `undefined` deletes the field. */
const paths: ReadonlyArray<ReadonlyArray<string | number>> = [
  [],
  ["type"],
  ["output_index"],
  ["content_index"],
  ["summary_index"],
  ["item_id"],
  ["delta"],
  ["logprobs"],
  ["item"],
  ["item", "type"],
  ["item", "call_id"],
  ["item", "name"],
  ["item", "arguments"],
  ["item", "content"],
  ["item", "content", 0],
  ["item", "content", 0, "text"],
  ["item", "summary"],
  ["item", "role"],
  ["part"],
  ["part", "type"],
  ["response"],
  ["response", "output"],
  ["response", "output", 0],
  ["response", "output", 0, "arguments"],
  ["response", "usage"],
  ["response", "status"],
  ["response", "incomplete_details"],
  ["response", "error"],
]

/** `value` at `path` in a copy of `target`; `target` itself when the path does not lead anywhere. */
const putAt = (target: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown => {
  if (path.length === 0) return value
  const [key, ...rest] = path
  if (Array.isArray(target) && typeof key === "number" && key < target.length) {
    const copy = [...target]
    copy[key] = putAt(copy[key], rest, value)
    return copy
  }
  if (!Json.isObject(target) || typeof key !== "string") return target
  if (rest.length > 0 && !(key in target)) return target
  const copy: Data = { ...target }
  const next = rest.length === 0 ? value : putAt(copy[key], rest, value)
  if (next === undefined) delete copy[key]
  else copy[key] = next
  return copy
}

const edit = fc.oneof(
  { weight: 2, arbitrary: fc.tuple(fc.constant("drop" as const), fc.nat()) },
  { weight: 2, arbitrary: fc.tuple(fc.constant("duplicate" as const), fc.nat()) },
  { weight: 2, arbitrary: fc.tuple(fc.constant("swap" as const), fc.nat()) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("move" as const), fc.nat(), fc.nat()) },
  // A field left out.
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.constant("put" as const),
      fc.nat(),
      fc.constantFrom(...paths.slice(1)),
      fc.constant(undefined),
    ),
  },
  {
    weight: 4,
    arbitrary: fc.tuple(
      fc.constant("put" as const),
      fc.nat(),
      fc.constantFrom(...paths),
      fc.option(oddValue, { freq: 4, nil: undefined }),
    ),
  },
)

/**
 * The events of one answer, as objects: its items streamed (or sent whole, or left to the terminal
 * response), the terminal event (or none), then events dropped, duplicated, moved, and values of
 * the wrong type put in them.
 */
const answer = fc
  .record({
    items: fc.array(item, { maxLength: 4 }),
    shape: fc.oneof(
      { weight: 10, arbitrary: fc.constant<Shape>("streamed") },
      { weight: 1, arbitrary: fc.constantFrom<Shape>("whole", "notDone", "terminalOnly") },
    ),
    interleave: oneIn(4),
    picks: fc.array(fc.nat(), { maxLength: 30 }),
    header: fc.constantFrom(0, 1, 2),
    ending,
    output: terminalOutput,
    extraItem: item,
    usage,
    edits: fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 2, arbitrary: fc.array(edit, { minLength: 1, maxLength: 3 }) },
    ),
  })
  .map(({ items, shape, interleave, picks, header, ending, output, extraItem, usage, edits }) => {
    const queues = items.map((spec, i) =>
      itemEvents(spec, spec.at === undefined ? i : spec.at, shape),
    )
    let events: Array<unknown> = []
    const response = (fields: Data) => ({
      id: "resp_1",
      object: "response",
      model: "gpt-test",
      output: [],
      ...fields,
    })
    if (header > 0) {
      events.push({ type: "response.created", response: response({ status: "in_progress" }) })
    }
    if (header > 1) {
      events.push({ type: "response.in_progress", response: response({ status: "in_progress" }) })
    }
    if (interleave) {
      let pick = 0
      while (queues.some((queue) => queue.length > 0)) {
        const open = queues.filter((queue) => queue.length > 0)
        events.push(open[(picks[pick++] ?? 0) % open.length]!.shift())
      }
    } else {
      events.push(...queues.flat())
    }
    let finals = items.map(finalOf)
    if (output === "empty") finals = []
    else if (output === "missing") finals = finals.slice(0, -1)
    else if (output === "extra") finals = [...finals, finalOf(extraItem)]
    else if (output === "reversed") finals = [...finals].reverse()
    else if (output === "changed" && finals.length > 0) {
      const last = finals.at(-1)!
      finals[finals.length - 1] =
        last.type === "function_call"
          ? { ...last, arguments: `${String(last.arguments)} ` }
          : last.type === "message"
            ? { ...last, content: [{ type: "output_text", text: "other", annotations: [] }] }
            : { ...last, summary: [{ type: "summary_text", text: "other" }] }
    }
    if (shape === "terminalOnly") finals = items.map(finalOf)
    if (ending.type === "response.completed") {
      events.push({
        type: ending.type,
        response: response({ status: "completed", output: finals, usage }),
      })
    } else if (ending.type === "response.incomplete") {
      events.push({
        type: ending.type,
        response: response({
          status: "incomplete",
          output: finals,
          usage,
          incomplete_details: ending.reason === undefined ? null : { reason: ending.reason },
        }),
      })
    } else if (ending.type === "response.failed") {
      events.push({
        type: ending.type,
        response: response({ status: "failed", error: ending.error }),
      })
    } else if (ending.type === "error") {
      events.push(ending)
    }
    for (const change of edits) {
      if (events.length === 0) break
      const i = change[1] % events.length
      if (change[0] === "drop") events.splice(i, 1)
      else if (change[0] === "duplicate") events.splice(i, 0, events[i])
      else if (change[0] === "swap" && i + 1 < events.length) {
        events = [...events.slice(0, i), events[i + 1], events[i], ...events.slice(i + 2)]
      } else if (change[0] === "move") {
        const [moved] = events.splice(i, 1)
        events.splice(change[2] % (events.length + 1), 0, moved)
      } else if (change[0] === "put") events[i] = putAt(events[i], change[2], change[3])
    }
    return events
  })

const terminalTypes = new Set(["response.completed", "response.incomplete"])

/** The type of the first event that ends an answer (D13), if any. */
const firstTerminal = (events: ReadonlyArray<unknown>): string | undefined => {
  for (const event of events) {
    if (Json.isObject(event) && terminalTypes.has(event.type as string)) {
      return event.type as string
    }
  }
  return undefined
}

const encoder = new TextEncoder()

/** What the decoder is fed: the bytes, and what they were made of when they hold it whole. */
interface Input {
  readonly bytes: Uint8Array
  readonly events: ReadonlyArray<unknown> | undefined
  /** The byte offset after the data of the first terminal event: a cut before it ends nothing. */
  readonly terminalEnd: number | undefined
}

/**
 * SSE framing of the events: with `event:` lines as the API sends them or data lines only as
 * vercel/ai replays them, LF or CRLF, keep-alives, a last `[DONE]`, now and then an `event:
 * error` whose data is not JSON.
 */
const framed = fc
  .record({
    events: answer,
    named: fc.boolean(),
    end: fc.constantFrom("\n", "\r\n"),
    extras: fc.array(
      fc.tuple(
        fc.nat(),
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(": keep-alive", "data:", "id: 7\nretry: 10") },
          { weight: 1, arbitrary: fc.constant("event: error\ndata: upstream went away") },
        ),
      ),
      { maxLength: 2 },
    ),
    extra: oneIn(4),
    done: fc.constantFrom("data: [DONE]\n\n", "", ""),
  })
  .map(({ events, named, end, extras, extra, done }): Input => {
    const lines = events.map((event) => {
      const type = Json.isObject(event) ? event.type : undefined
      const name =
        named && typeof type === "string" && /^[\w.]+$/.test(type) ? `event: ${type}\n` : ""
      return { text: `${name}data: ${JSON.stringify(event)}`, event }
    })
    if (extra) {
      for (const [at, text] of extras)
        lines.splice(at % (lines.length + 1), 0, { text, event: undefined })
    }
    let stream = ""
    let terminalEnd: number | undefined
    for (const line of lines) {
      stream += line.text.replace(/\n/g, end)
      const type = Json.isObject(line.event) ? line.event.type : undefined
      if (terminalEnd === undefined && terminalTypes.has(type as string)) {
        terminalEnd = encoder.encode(stream).length
      }
      stream += end + end
    }
    return { bytes: encoder.encode(stream + done), events, terminalEnd }
  })

/** Bytes cut, inserted, replaced or dropped at random offsets. */
const mutated = fc
  .tuple(
    framed,
    fc.array(fc.tuple(fc.constantFrom("insert", "replace", "drop", "cut"), fc.nat(), fc.nat(255)), {
      minLength: 1,
      maxLength: 3,
    }),
  )
  .map(([{ bytes: original }, edits]): Input => {
    let bytes = [...original]
    for (const [change, at, byte] of edits) {
      const i = at % (bytes.length + 1)
      if (change === "insert") bytes.splice(i, 0, byte)
      else if (change === "replace") bytes[i] = byte
      else if (change === "drop") bytes.splice(i, (byte % 40) + 1)
      else bytes = bytes.slice(0, i)
    }
    return { bytes: Uint8Array.from(bytes), events: undefined, terminalEnd: undefined }
  })

const input: fc.Arbitrary<Input> = fc.oneof(
  { weight: 7, arbitrary: framed },
  { weight: 3, arbitrary: mutated },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ maxLength: 200 })
      .map((bytes) => ({ bytes, events: undefined, terminalEnd: undefined })),
  },
)

const mode = fc.constantFrom<Mode>("strict", "lenient")

/** What a run gave, read with the contract's discipline checked at every step. */
interface Outcome {
  readonly events: ReadonlyArray<Event.Event>
  readonly completion: Completion.Completion | undefined
  readonly error: SvirError.SvirError | undefined
}

/**
 * Feeds every chunk (also after the decoder is done, which must then give nothing) and finishes.
 * Asserts the contract: nothing after `Completed` or an error, `Completed` last, exactly one of
 * the two, and `done()` once either came.
 */
const decode = (mode: Mode, chunks: Iterable<Uint8Array>): Outcome => {
  const decoder = ResponsesCodec.decoder({ mode })
  const events: Array<Event.Event> = []
  let completion: Completion.Completion | undefined
  let error: SvirError.SvirError | undefined
  const take = (step: Codec.DecodeStep) => {
    const ended = completion !== undefined || error !== undefined
    assert.isFalse(
      ended && (step.events.length > 0 || step.error !== undefined),
      "a step after the end",
    )
    for (const event of step.events) {
      assert.isUndefined(completion, "an event after Completed")
      if (event._tag === "Completed") completion = event.completion
      events.push(event)
    }
    if (step.error !== undefined) {
      assert.isUndefined(completion, "an error beside Completed")
      assert.isTrue(SvirError.isSvirError(step.error), "an error that is not a SvirError")
      assert.include(SvirError.kinds, step.error.reason._tag)
      error = step.error
    }
    if (completion !== undefined || error !== undefined) assert.isTrue(decoder.done(), "not done")
    else assert.isFalse(decoder.done(), "done with no end")
  }
  for (const chunk of chunks) take(decoder.push(chunk))
  take(decoder.finish())
  assert.isTrue((completion === undefined) !== (error === undefined), "not exactly one end")
  assert.isTrue(decoder.done())
  return { events, completion, error }
}

function* strides(bytes: Uint8Array, stride: number): Generator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += stride) yield bytes.subarray(i, i + stride)
}

/** What must not depend on the chunking: every event, and the error's kind and message. */
const seen = ({ events, error }: Outcome) => ({
  events,
  error: error === undefined ? undefined : [error.reason._tag, error.message],
})

/**
 * D15: the events add up to the completion; calls are told apart by their id (core's Event), and
 * the log probabilities are the same tokens. Items are joined in the order they gave their pieces
 * (D26), whatever their `output_index`, with the separators between reasoning parts (D18).
 */
const assertAddsUp = (outcome: Outcome, completion: Completion.Completion) => {
  const added = joined(outcome.events)
  const tokens = outcome.events.flatMap((event) =>
    event._tag === "LogprobsDelta" ? event.tokens : [],
  )
  assert.deepStrictEqual(tokens, completion.logprobs ?? [], "log probabilities")
  assert.strictEqual(added.text, completion.text, "text")
  assert.strictEqual(added.reasoning, completion.reasoning, "reasoning")
  assert.strictEqual(added.refusal, completion.refusal, "refusal")
  if (completion.finish === "tool_calls") {
    // D19: a call's index is its place among the completion's calls.
    assert.deepStrictEqual(added.calls, [...completion.calls], "calls")
  }
}

/** A completion of the types core says, whose calls have distinct ids (D19). */
const assertWellFormed = (completion: Completion.Completion) => {
  for (const field of [completion.text, completion.reasoning, completion.refusal]) {
    assert.isString(field)
  }
  for (const call of completion.calls) {
    assert.isString(call.id)
    assert.isString(call.name)
    assert.isString(call.arguments, "a call whose arguments are not text")
  }
  const ids = completion.calls.map((call) => call.id)
  assert.strictEqual(new Set(ids).size, ids.length, "two calls with one id")
}

describe("the stream decoder, fuzzed", () => {
  it("reaches the valid region often", () => {
    // Of 1,000 inputs (a third of them bytes changed at random), these many complete: in strict
    // mode ~26%, ~9% with calls released and ~5% incomplete; in lenient mode ~34% and ~13%.
    const sample = fc.sample(input, { seed: 7, numRuns: 1_000 })
    const strict = sample.map((i) => decode("strict", [i.bytes]).completion)
    const lenient = sample.map((i) => decode("lenient", [i.bytes]).completion)
    const withCalls = (done: Completion.Completion | undefined) => (done?.calls.length ?? 0) > 0
    const cutShort = (done: Completion.Completion | undefined) =>
      done?.finish === "length" || done?.finish === "content_filter"
    assert.isAbove(strict.filter((done) => done !== undefined).length, 220)
    assert.isAbove(strict.filter(withCalls).length, 75)
    assert.isAbove(strict.filter(cutShort).length, 30)
    assert.isAbove(lenient.filter((done) => done !== undefined).length, 290)
    assert.isAbove(lenient.filter(withCalls).length, 105)
  })

  it(
    "never throws, ends once, and the outcome is the same at every chunking",
    () => {
      fc.assert(
        fc.property(
          input,
          mode,
          fc.array(fc.nat(), { maxLength: 12 }),
          ({ bytes }, mode, points) => {
            const started = performance.now()
            const whole = decode(mode, [bytes])
            assert.isBelow(performance.now() - started, 2_000, "one small answer took seconds")
            const expected = seen(whole)
            assert.deepStrictEqual(seen(decode(mode, strides(bytes, 1))), expected, "1-byte chunks")
            assert.deepStrictEqual(seen(decode(mode, strides(bytes, 3))), expected, "3-byte chunks")
            assert.deepStrictEqual(
              seen(decode(mode, cutAt(bytes, points))),
              expected,
              "random cuts",
            )
          },
        ),
        { seed: 20_261_206, numRuns: Math.ceil(runs / 4) },
      )
    },
    timeout,
  )

  it(
    "calls are released only in Completed, and only after response.completed",
    () => {
      fc.assert(
        fc.property(input, mode, fc.nat(), ({ bytes, events, terminalEnd }, mode, at) => {
          const { completion } = decode(mode, [bytes])
          if (completion !== undefined) assertWellFormed(completion)
          if (completion !== undefined && completion.calls.length > 0) {
            assert.strictEqual(completion.finish, "tool_calls")
            if (events !== undefined)
              assert.strictEqual(firstTerminal(events), "response.completed")
            else assert.include(new TextDecoder().decode(bytes), "response.completed")
          }
          // D13: cut before the terminal event's data is whole, the stream completes nothing.
          if (terminalEnd === undefined) return
          const cut = decode(mode, [bytes.subarray(0, at % terminalEnd)])
          assert.isUndefined(cut.completion, "a completion from a cut stream")
        }),
        { seed: 20_261_207, numRuns: runs },
      )
    },
    timeout,
  )

  it(
    "the events add up to the completion in strict mode; lenient mode completes the same",
    () => {
      fc.assert(
        fc.property(input, ({ bytes }) => {
          const strict = decode("strict", [bytes])
          const lenient = decode("lenient", [bytes])
          if (lenient.completion !== undefined && lenient.completion.notes === undefined) {
            assertAddsUp(lenient, lenient.completion)
          }
          if (strict.completion === undefined) return
          assertAddsUp(strict, strict.completion)
          assert.deepStrictEqual(lenient, strict, "lenient mode")
        }),
        { seed: 20_261_208, numRuns: runs },
      )
    },
    timeout,
  )
})

/** The JSON text of the response the last event that has one carries (the terminal event's). */
const responseText = (events: ReadonlyArray<unknown>): string => {
  const last = [...events].reverse().find((event) => Json.isObject(event) && "response" in event)
  return JSON.stringify(Json.isObject(last) ? last.response : last) ?? ""
}

/** The response of an answer's terminal event, as a whole body; now and then its text changed. */
const responseBody = fc.oneof(
  {
    weight: 6,
    arbitrary: answer.map(responseText),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(answer, fc.nat(), fc.string({ maxLength: 3 }), fc.nat({ max: 8 }))
      .map(([events, at, inserted, dropped]) => {
        const text = responseText(events)
        const i = at % (text.length + 1)
        return text.slice(0, i) + inserted + text.slice(i + dropped)
      }),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 100 }) },
)

/** How deep a JSON value nests, as `Json.maxDepth` counts. */
const depthOf = (value: unknown): number => {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf))
  if (Json.isObject(value)) return 1 + Math.max(0, ...Object.values(value).map(depthOf))
  return 0
}

const decodeBody = (mode: Mode, text: string) =>
  Effect.runSyncExit(ResponsesCodec.decodeResponse(text, { mode }))

describe("the whole-answer reader, fuzzed", () => {
  it(
    "never dies, gives a Completion or a SvirError, and releases calls only when completed",
    () => {
      fc.assert(
        fc.property(responseBody, (text) => {
          const strict = decodeBody("strict", text)
          const lenient = decodeBody("lenient", text)
          for (const exit of [strict, lenient]) {
            if (Exit.isFailure(exit)) {
              assert.isFalse(Cause.hasDies(exit.cause), "decodeResponse died")
              const error = Cause.squash(exit.cause)
              assert.isTrue(SvirError.isSvirError(error), "an error that is not a SvirError")
              continue
            }
            assertWellFormed(exit.value)
            if (exit.value.calls.length === 0) continue
            const status = (JSON.parse(text) as Data).status
            assert.isTrue(status === "completed" || status === undefined, `released from ${status}`)
          }
          if (Exit.isSuccess(strict)) assert.deepStrictEqual(lenient, strict)
        }),
        { seed: 20_261_209, numRuns: Math.ceil(runs / 2) },
      )
    },
    timeout,
  )

  it(
    "a whole answer reads as a stream of its terminal event alone (D14)",
    () => {
      fc.assert(
        fc.property(responseBody, mode, (text, mode) => {
          const body = Json.parseValue(text)
          // A response still in progress is Unsupported whole (D14), an error body is an error
          // (D22), and the event's one more level of nesting can cross the depth bound (D25): those
          // have no stream to compare with.
          if (body instanceof Json.JsonError || !Json.isObject(body)) return
          if (ServerError.isErrorBody(body) || depthOf(body) >= Json.maxDepth - 1) return
          const type =
            body.status === undefined || body.status === "completed"
              ? "response.completed"
              : body.status === "incomplete" || body.status === "failed"
                ? `response.${body.status}`
                : undefined
          if (type === undefined) return
          const streamed = decode(mode, [
            encoder.encode(`data: ${JSON.stringify({ type, response: body })}\n\n`),
          ])
          const whole = decodeBody(mode, text)
          if (Exit.isSuccess(whole)) assert.deepStrictEqual(streamed.completion, whole.value)
          else
            assert.strictEqual(
              streamed.error?.reason._tag,
              (Cause.squash(whole.cause) as SvirError.SvirError).reason._tag,
            )
        }),
        { seed: 20_261_210, numRuns: Math.ceil(runs / 2) },
      )
    },
    timeout,
  )
})
