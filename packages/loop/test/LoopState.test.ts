import { describe, it } from "@effect/vitest"
import { Client } from "@svir/client"
import { type Completion, Message, Request, Toolbox } from "@svir/core"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import fc from "fast-check"
import { assert, expect } from "vitest"
import { LoopState } from "../src/index.js"
import { serverAndClient, tools } from "./helpers.js"

const bounds: LoopState.Bounds = { maxSteps: 20, conditions: [], concurrency: 1 }

const answerWith = (call: Parameters<LoopState.Seams<never, never>["answer"]>[0]) =>
  Effect.map(Toolbox.callSafely(tools, call), (result) => ({ call, result }))

/** Steps the loop to its end, with the model's answers from `complete`; every state on the way. */
const statesOf = <E>(
  first: LoopState.LoopState,
  complete: (request: Request.Request) => Effect.Effect<Completion.Completion, E>,
) =>
  Effect.gen(function* () {
    const states = [first]
    let state = first
    while (state.stop === undefined) {
      state = yield* LoopState.step(state, { complete, answer: answerWith }, bounds)
      states.push(state)
    }
    return states
  })

const roundTrip = (state: LoopState.LoopState) =>
  LoopState.decode(JSON.parse(JSON.stringify(LoopState.encode(state))))

const asText = (state: LoopState.LoopState) => JSON.stringify(LoopState.encode(state))

/** N answers of one to three calls each, then text; an image in the question or not. */
const script = fc.record({
  steps: fc.array(
    fc.array(
      fc.oneof(
        fc.nat({ max: 1000 }).map((id) => ({ name: "lookup", arguments: { id } })),
        fc.constant({ name: "now" }),
        fc.constant({ name: "lookup", arguments: { id: "not a number" } }),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    { maxLength: 4 },
  ),
  image: fc.option(fc.uint8Array({ maxLength: 16 }), { nil: undefined }),
})

describe("LoopState", () => {
  it("a state of any run survives encode, JSON and decode, and steps on from there alike", () =>
    fc.assert(
      fc.asyncProperty(script, ({ steps, image }) =>
        Effect.runPromise(
          Effect.scoped(
            Effect.gen(function* () {
              const answers = [
                ...steps.map((calls) => Answer.reply({ calls })),
                Answer.text("Done."),
              ]
              const { client, request } = yield* serverAndClient(answers)
              const question =
                image === undefined
                  ? request
                  : request.pipe(Request.user([Message.image(image, "image/png")]))
              const states = yield* statesOf(LoopState.initial(question), client.complete)
              // The model's answer of each step, to step on from any state without the server.
              const byStep = states.flatMap((state) =>
                state.pending === undefined ? [] : [state.pending],
              )
              const replay = (state: LoopState.LoopState) => () => {
                const answer = byStep[state.steps.length]
                return answer === undefined
                  ? Effect.die("no answer for this step")
                  : Effect.succeed(answer)
              }
              for (const state of states) {
                const decoded = yield* roundTrip(state)
                expect(decoded).toEqual(state)
                assert.strictEqual(asText(decoded), asText(state))
                const seams = { complete: replay(state), answer: answerWith }
                const fromOriginal = yield* LoopState.step(state, seams, bounds)
                const fromDecoded = yield* LoopState.step(decoded, seams, bounds)
                assert.strictEqual(asText(fromDecoded), asText(fromOriginal))
              }
              assert.deepStrictEqual(states.at(-1)?.stop, { _tag: "Answered" })
            }),
          ),
        ),
      ),
      { numRuns: 20 },
    ))

  it.effect("a state of a run with an API key holds no trace of it", () =>
    Effect.gen(function* () {
      const apiKey = "sk-live-a1b2c3d4e5f6"
      const server = yield* ScriptedServer.start([
        Answer.toolCalls([{ name: "now" }]),
        Answer.text("Noon."),
      ])
      const client = yield* Client.make({ baseUrl: server.url, apiKey, retry: false }).pipe(
        Effect.provide(FetchHttpClient.layer),
      )
      const request = yield* Request.make("scripted").pipe(
        Request.user("Time?"),
        Request.toolsFrom(tools),
      )
      const states = yield* statesOf(LoopState.initial(request), client.complete)
      assert.strictEqual(states.at(-1)?.steps.length, 2)
      assert.include(server.requests[0]?.headers.authorization ?? "", apiKey)
      for (const state of states) {
        const text = asText(state)
        assert.notInclude(text, apiKey)
        assert.notInclude(text, "a1b2c3d4e5f6")
        assert.notInclude(text.toLowerCase(), "authorization")
      }
    }).pipe(Effect.scoped),
  )

  it.effect("a state of another version is refused", () =>
    Effect.gen(function* () {
      const encoded = LoopState.encode(LoopState.initial(Request.make("scripted")))
      const refused = yield* Effect.flip(LoopState.decode({ ...encoded, version: 2 }))
      assert.strictEqual(refused._tag, "SchemaError")
    }),
  )
})
