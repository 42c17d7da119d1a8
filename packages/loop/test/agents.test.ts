import { assert, describe, it } from "@effect/vitest"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect } from "effect"
import * as HandWritten from "../bench/agents/handWritten.js"
import * as Vercel from "../bench/agents/vercel.js"
import * as WithLoop from "../bench/agents/withLoop.js"

const script = [
  Answer.reply({
    text: "Let me look.",
    calls: [{ name: "lookup", arguments: { id: 42 } }, { name: "now" }],
  }),
  Answer.text("Order 42 is shipped."),
]

const printed =
  "Let me look.\nlookup: order 42 is shipped\n\nnow: 2026-01-01T00:00:00Z\nOrder 42 is shipped."

type Message = Readonly<Record<string, unknown>>

/** What the second request carried back: each message's role, and a tool message's id and text. */
const fedBack = (server: ScriptedServer.ScriptedServer) =>
  (server.bodies[1] as { readonly messages: ReadonlyArray<Message> }).messages.map((message) =>
    message.role === "tool"
      ? [message.role, message.tool_call_id, message.content]
      : [message.role],
  )

/** The three agents of `bench/agents` do the same job, so their line counts compare. */
describe("the agents of the line count", () => {
  const agents = {
    "by hand": (url: string, print: (text: string) => void) =>
      Effect.runPromise(HandWritten.agent(url, print)),
    "with @svir/loop": (url: string, print: (text: string) => void) =>
      Effect.runPromise(WithLoop.agent(url, print)),
    "with the AI SDK": Vercel.agent,
  }
  for (const [name, agent] of Object.entries(agents)) {
    it(`${name}: prints the same, answers the same, sends the same results back`, async () => {
      const server = await ScriptedServer.listen(script, { chunkSize: 3 })
      try {
        let out = ""
        const text = await agent(server.url, (piece) => {
          out += piece
        })
        assert.strictEqual(text, "Order 42 is shipped.")
        assert.strictEqual(out, printed)
        assert.deepStrictEqual(fedBack(server), [
          ["user"],
          ["assistant"],
          ["tool", "call_1", "order 42 is shipped"],
          ["tool", "call_2", "2026-01-01T00:00:00Z"],
        ])
      } finally {
        await server.close()
      }
    })
  }
})
