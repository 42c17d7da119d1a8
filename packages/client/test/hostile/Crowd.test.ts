import { assert, describe, it } from "@effect/vitest"
import { type Event, Request, SvirError } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import { Effect, Exit, Fiber, FiberSet, Stream } from "effect"
import { allClosed, clientOf } from "./client.js"
import * as Hostile from "./HostileServer.js"

const sse = { "content-type": "text/event-stream" }
const textEvent = Hostile.frame(Hostile.chunk({ role: "assistant", content: "a" }))
const letters = new Uint8Array(16 * 1024).fill(97)

const streams = 1_000
const behaviours = ["normal", "reset", "stall", "huge"] as const
type Behaviour = (typeof behaviours)[number]

/** How each behaviour may end: under load, a reset can come before the headers are read. */
const expected: Record<Behaviour, ReadonlyArray<string>> = {
  normal: ["Completed"],
  reset: ["TruncatedStream", "Transport"],
  stall: ["Timeout"],
  huge: ["ResponseLimit"],
}

/** The request names the behaviour it asks for: under load, requests arrive in any order. */
const behaviourOf = (body: string): Behaviour =>
  (JSON.parse(body) as { messages: Array<{ content: Behaviour }> }).messages[0]!.content

const serve = (behaviour: Behaviour): Hostile.Behaviour => {
  switch (behaviour) {
    case "normal":
      return Hostile.answer(200, sse, Hostile.streamedText("whole"))
    case "reset":
      return Hostile.cutAfter(sse, textEvent, "reset")
    case "stall":
      return Hostile.drip(200, sse, ":", 60_000, textEvent)
    case "huge":
      return Hostile.endless(200, sse, letters, 1024 * 1024, new TextEncoder().encode("data: "))
  }
}

/** How a stream ended: its last event's tag, or its error's kind. */
const outcome = (exit: Exit.Exit<ReadonlyArray<Event.Event>, unknown>): string => {
  if (Exit.isSuccess(exit)) return exit.value.at(-1)?._tag ?? "nothing"
  const error = Exit.findErrorOption(exit)
  return error._tag === "Some" && SvirError.isSvirError(error.value)
    ? error.value.reason._tag
    : "untyped"
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length

describe("a crowd", () => {
  it.live(
    `${streams} concurrent streams, normal, reset, stalled and huge, each end typed and let go`,
    () =>
      Effect.gen(function* () {
        const timersBefore = timers()
        const server = yield* Hostile.start(({ body }) => serve(behaviourOf(body)))
        const codec = OpenAiCodec.make({ maxEventBytes: 64 * 1024 })
        const client = yield* clientOf(server, { codec })
        // The total timeout is what ends a stall; the other streams end on their own.
        const impatient = yield* clientOf(server, { codec, timeouts: { total: "2 seconds" } })
        const fibers = yield* FiberSet.make<ReadonlyArray<Event.Event>, SvirError.SvirError>()
        const runs: Array<
          readonly [Behaviour, Fiber.Fiber<ReadonlyArray<Event.Event>, SvirError.SvirError>]
        > = []
        for (let i = 0; i < streams; i++) {
          const behaviour = behaviours[i % behaviours.length]!
          const caller = behaviour === "stall" ? impatient : client
          const request = Request.make("hostile").pipe(Request.user(behaviour))
          runs.push([
            behaviour,
            yield* FiberSet.run(fibers, Stream.runCollect(caller.stream(request))),
          ])
        }
        for (const [behaviour, fiber] of runs) {
          const ended = outcome(yield* Fiber.await(fiber))
          assert.include(expected[behaviour], ended, `a ${behaviour} stream`)
        }
        yield* allClosed(server)
        assert.strictEqual(yield* FiberSet.size(fibers), 0)
        assert.isAtMost(timers(), timersBefore, "no sleep left behind by a stream")
      }),
    60_000,
  )
})
