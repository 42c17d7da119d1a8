import { assert, describe, it } from "@effect/vitest"
import { Request, Tool } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import { Answer } from "@svir/testing"
import { Effect, Stream } from "effect"
import { serverAndClient } from "./helpers.js"

const lookup = Tool.make("lookup", "Find an order.", {
  type: "object",
  properties: { id: { type: "integer" } },
  required: ["id"],
})

const request = Request.make("m").pipe(
  Request.user("Where is order 42?"),
  Request.tool(lookup),
  Request.seed(7),
  Request.topP(0.9),
  Request.stop("END"),
  Request.parallelToolCalls(false),
  OpenAiCodec.options({ serviceTier: "flex", user: "user-5f2a", prediction: "Order 42 is" }),
  Request.extra({ top_k: 20, reasoning_effort: "xhigh" }),
)

describe("wire options through the client", () => {
  it.live("are sent as the codec writes them", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([Answer.text("Shipped.")])
      yield* Stream.runDrain(client.stream(request))
      assert.deepInclude(server.bodies[0], {
        seed: 7,
        top_p: 0.9,
        stop: "END",
        parallel_tool_calls: false,
        service_tier: "flex",
        user: "user-5f2a",
        prediction: { type: "content", content: "Order 42 is" },
        top_k: 20,
        reasoning_effort: "xhigh",
        stream_options: { include_usage: true },
      })
    }),
  )

  it.live("a refused request is sent once more without the optional fields (client D6)", () =>
    Effect.gen(function* () {
      const { server, client } = yield* serverAndClient([
        Answer.error(400, "Unrecognized request argument supplied: service_tier"),
        Answer.text("Shipped."),
        Answer.text("Still shipped."),
      ])
      const done = yield* client.complete(request)
      assert.strictEqual(done.text, "Shipped.")
      assert.isTrue(yield* client.isStrict)
      // A strict server is sent the lean body from the start.
      yield* client.complete(request)
      const [full, ...lean] = server.bodies as ReadonlyArray<Record<string, unknown>>
      assert.strictEqual(lean.length, 2)
      for (const body of lean) {
        for (const field of ["service_tier", "user", "prediction", "reasoning_effort"]) {
          assert.property(full, field)
          assert.notProperty(body, field)
        }
        // What the answer must meet, and the caller's own server fields, stay.
        assert.deepInclude(body, { seed: 7, top_p: 0.9, stop: "END", top_k: 20 })
        assert.deepInclude(body, { parallel_tool_calls: false })
      }
    }),
  )
})
