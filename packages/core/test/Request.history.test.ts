import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Completion, Message, Request, ToolCall, ToolResult } from "../src/index.js"

// Requests share the history they are built from (D9). The oracle is the plain way: every step
// copies the messages before it into a new array.

type Step =
  | { readonly _tag: "User"; readonly from: number; readonly text: string }
  | { readonly _tag: "Assistant"; readonly from: number; readonly call: string }
  | { readonly _tag: "ToolResults"; readonly from: number; readonly ids: ReadonlyArray<string> }
  | { readonly _tag: "Messages"; readonly from: number; readonly texts: ReadonlyArray<string> }
  | { readonly _tag: "System"; readonly from: number; readonly text: string }
  | { readonly _tag: "Read"; readonly from: number }
  | { readonly _tag: "CopyOutside"; readonly from: number }
  | { readonly _tag: "Spread"; readonly from: number }
  | { readonly _tag: "Replace"; readonly from: number; readonly texts: ReadonlyArray<string> }

const from = fc.nat()
const word = fc.string({ maxLength: 3 })
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ _tag: fc.constant("User"), from, text: word }),
  fc.record({ _tag: fc.constant("Assistant"), from, call: word }),
  fc.record({ _tag: fc.constant("ToolResults"), from, ids: fc.array(word, { maxLength: 3 }) }),
  fc.record({ _tag: fc.constant("Messages"), from, texts: fc.array(word, { maxLength: 3 }) }),
  fc.record({ _tag: fc.constant("System"), from, text: word }),
  fc.record({ _tag: fc.constant("Read"), from }),
  fc.record({ _tag: fc.constant("CopyOutside"), from }),
  fc.record({ _tag: fc.constant("Spread"), from }),
  fc.record({ _tag: fc.constant("Replace"), from, texts: fc.array(word, { maxLength: 3 }) }),
) as fc.Arbitrary<Step>

const completion = (call: string) =>
  Completion.make({ text: call, calls: [ToolCall.make(call, "tool", "{}")], finish: "tool_calls" })

/** What was read from a request, and what it held then. */
interface Read {
  readonly messages: ReadonlyArray<Message.Message>
  readonly entries: ReadonlyArray<Message.Message>
}

const run = (steps: ReadonlyArray<Step>) => {
  const requests: Array<Request.Request> = [Request.make("m")]
  const oracle: Array<ReadonlyArray<Message.Message>> = [[]]
  const reads: Array<Read> = []
  for (const next of steps) {
    const i = next.from % requests.length
    const request = requests[i]!
    const before = oracle[i]!
    const add = (made: Request.Request, messages: ReadonlyArray<Message.Message>) => {
      requests.push(made)
      oracle.push([...before, ...messages])
    }
    switch (next._tag) {
      case "User":
        add(Request.user(request, next.text), [Message.user(next.text)])
        break
      case "Assistant":
        add(Request.assistant(request, completion(next.call)), [
          Message.assistant(completion(next.call)),
        ])
        break
      case "ToolResults": {
        const results = next.ids.map((id) => ToolResult.make(id, id))
        // Given as an iterable that is not an array.
        add(Request.toolResults(request, new Set(results)), results.map(Message.toolResult))
        break
      }
      case "Messages": {
        const messages = next.texts.map((text) => Message.user(text))
        add(Request.messages(request, messages), messages)
        break
      }
      case "System":
        add(Request.system(request, next.text), [])
        break
      case "Read":
        reads.push({ messages: request.messages, entries: [...request.messages] })
        break
      case "CopyOutside":
        // As `@svir/client` does when it reads attached files: same prototype, other messages.
        add(
          Object.assign(Object.create(Object.getPrototypeOf(request)), request, {
            messages: [...request.messages],
          }),
          [],
        )
        break
      case "Spread":
        add({ ...request }, [])
        break
      case "Replace": {
        // The field is read-only to the type checker, but a cast can still assign it.
        const made = Request.system(request, "replaced")
        const messages = next.texts.map((text) => Message.user(text))
        ;(made as { messages: ReadonlyArray<Message.Message> }).messages = messages
        requests.push(made)
        oracle.push(messages)
        break
      }
    }
  }
  return { requests, oracle, reads }
}

describe("Request history", () => {
  it("gives every request the messages that copying on every step gives, in any order of steps", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const { requests, oracle, reads } = run(steps)
        for (const [i, request] of requests.entries()) {
          assert.deepStrictEqual(request.messages, oracle[i])
        }
        // An array once read never changes, whatever was added after it.
        for (const read of reads) {
          assert.strictEqual(read.messages.length, read.entries.length)
          for (const [j, entry] of read.entries.entries()) {
            assert.strictEqual(read.messages[j], entry)
          }
        }
      }),
      { seed: 8_008, numRuns: 1_000 },
    )
  })

  it("keeps the messages given, and gives the same array on every read", () => {
    const given = [Message.user("a"), Message.user("b")]
    const request = Request.messages(Request.make("m"), given)
    assert.strictEqual(request.messages, request.messages)
    assert.strictEqual(request.messages[0], given[0])
    assert.notStrictEqual(request.messages, given)
  })

  it("adds to an older request without touching the newer one made from it", () => {
    const base = Request.make("m").pipe(Request.user("one"))
    const left = Request.user(base, "left")
    const right = Request.user(base, "right")
    const leftMore = Request.user(left, "more")
    assert.deepStrictEqual(base.messages, [Message.user("one")])
    assert.deepStrictEqual(left.messages, [Message.user("one"), Message.user("left")])
    assert.deepStrictEqual(right.messages, [Message.user("one"), Message.user("right")])
    assert.deepStrictEqual(leftMore.messages, [...left.messages, Message.user("more")])
  })

  it("shows its messages as a field: keys, spread, JSON and inspection", () => {
    const request = Request.make("m").pipe(Request.system("s"), Request.user("hi"))
    assert.deepStrictEqual(Object.keys(request), [
      "model",
      "system",
      "messages",
      "tools",
      "toolChoice",
      "maxTokens",
      "temperature",
      "responseFormat",
      "reasoningEffort",
      "includeUsage",
      "sendReasoning",
      "contextTokens",
      "seed",
      "topP",
      "stop",
      "presencePenalty",
      "frequencyPenalty",
      "parallelToolCalls",
      "extra",
      "codecOptions",
    ])
    assert.deepStrictEqual({ ...request }.messages, [Message.user("hi")])
    assert.deepStrictEqual(JSON.parse(JSON.stringify(request)).messages, [
      { _tag: "User", parts: [{ _tag: "Text", text: "hi" }] },
    ])
    assert.include(inspect(request, { depth: 4 }), "text: 'hi'")
    assert.deepStrictEqual(Request.user(request, "again"), Request.user(request, "again"))
  })
})
