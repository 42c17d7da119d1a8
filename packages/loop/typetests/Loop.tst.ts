import type { Client } from "@svir/client"
import type { Completion, Request, SvirError, Toolbox, ToolCall } from "@svir/core"
import { Loop, type Step, type Stop } from "@svir/loop"
import { Context, Data, Effect, type Stream } from "effect"
import { describe, expect, test } from "tstyche"

class Offline extends Data.TaggedError("Offline")<{ readonly url: string }> {}
class Sender extends Context.Service<Sender, { readonly url: string }>()("Sender") {}
class Tooling extends Context.Service<Tooling, { readonly root: string }>()("Tooling") {}
class Mender extends Context.Service<Mender, { readonly names: ReadonlyArray<string> }>()(
  "Mender",
) {}
class Aborter extends Context.Service<Aborter, { readonly stop: Effect.Effect<void> }>()(
  "Aborter",
) {}
class Listener extends Context.Service<Listener, { readonly seen: number }>()("Listener") {}

declare const client: Client.Service
declare const send: Loop.Send<Offline, Sender>
declare const toolbox: Toolbox.Toolbox<Tooling>
declare const plainToolbox: Toolbox.Toolbox
declare const request: Request.Request
declare const repair: Loop.Repair<Mender>
declare const failingRepair: (broken: Loop.Broken) => Effect.Effect<undefined, Offline>
declare const abort: Effect.Effect<void, never, Aborter>

describe("Loop.run", () => {
  test("gives a Loop.Result: the text, every step, the usage that may be missing, why it stopped", () => {
    const result = Loop.run({ send: client.stream, toolbox, request })
    expect<Effect.Success<typeof result>>().type.toBe<Loop.Result>()
    expect<Loop.Result["text"]>().type.toBe<string>()
    expect<Loop.Result["completion"]>().type.toBe<Completion.Completion | undefined>()
    expect<Loop.Result["steps"]>().type.toBe<ReadonlyArray<Step.Step>>()
    expect<Loop.Result["usage"]>().type.toBe<Completion.Usage | undefined>()
    expect<Loop.Result["stop"]>().type.toBe<Stop.Reason>()
    expect<Loop.Result["request"]>().type.toBe<Request.Request>()
    expect<Loop.Result["stop"]["_tag"]>().type.toBe<
      "Answered" | "MaxSteps" | "Condition" | "Aborted"
    >()
  })

  test("the usage and the last completion must be checked before they are read", () => {
    expect((result: Loop.Result) => result.usage.total).type.toRaiseError(
      "'result.usage' is possibly 'undefined'",
    )
    expect((result: Loop.Result) => result.completion.finish).type.toRaiseError(
      "'result.completion' is possibly 'undefined'",
    )
  })

  test("with the client's send, the error is the client's SvirError and nothing is required", () => {
    expect(Loop.run({ send: client.stream, toolbox: plainToolbox, request })).type.toBe<
      Effect.Effect<Loop.Result, SvirError.SvirError>
    >()
    expect(Loop.run({ send: client.complete, toolbox: plainToolbox, request })).type.toBe<
      Effect.Effect<Loop.Result, SvirError.SvirError>
    >()
  })

  test("the error is the send function's error and SvirError", () => {
    const result = Loop.run({ send, toolbox, request })
    expect<Effect.Error<typeof result>>().type.toBe<Offline | SvirError.SvirError>()
  })

  test("the services are those of send, the toolbox, the repair hook, abort and onEvent", () => {
    const result = Loop.run({
      send,
      toolbox,
      request,
      repair,
      abort,
      onEvent: () => Effect.service(Listener),
    })
    expect(result).type.toBe<
      Effect.Effect<
        Loop.Result,
        Offline | SvirError.SvirError,
        Sender | Tooling | Mender | Aborter | Listener
      >
    >()
  })

  test("a repair hook cannot fail: it mends the call or leaves it", () => {
    expect(Loop.run({ send, toolbox, request, repair: failingRepair })).type.toRaiseError(
      "Type 'Offline' is not assignable to type 'never'",
    )
    expect<ReturnType<Loop.Repair<never>>>().type.toBe<
      Effect.Effect<ToolCall.ToolCall | undefined>
    >()
  })

  test("the request is required", () => {
    expect(Loop.run({ send, toolbox })).type.toRaiseError("Property 'request' is missing")
  })
})

describe("Loop.stream", () => {
  test("gives the loop's events, with the same error and services as run", () => {
    expect(Loop.stream({ send, toolbox, request, repair, abort })).type.toBe<
      Stream.Stream<Loop.Event, Offline | SvirError.SvirError, Sender | Tooling | Mender | Aborter>
    >()
  })
})
