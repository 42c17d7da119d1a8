import { tmpdir } from "node:os"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { ListPromptsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, referenceServer, serveHttp } from "./servers.js"

const everything = () =>
  McpToolbox.stdio({ command: process.execPath, args: [referenceServer("everything"), "stdio"] })

describe("McpPrompts, with @modelcontextprotocol/server-everything over stdio", () => {
  afterEach(assertNoChildLeft)

  it.live("lists the prompts with their arguments", () =>
    Effect.gen(function* () {
      const { prompts } = yield* everything()
      const listed = yield* prompts.list
      const names = listed.map((prompt) => prompt.name)
      assert.includeMembers(names, ["simple-prompt", "args-prompt", "resource-prompt"])
      const args = listed.find((prompt) => prompt.name === "args-prompt")
      assert.deepStrictEqual(
        args?.arguments?.map((argument) => [argument.name, argument.required]),
        [
          ["city", true],
          ["state", false],
        ],
      )
    }),
  )

  it.live("gets a prompt with its arguments filled", () =>
    Effect.gen(function* () {
      const { prompts } = yield* everything()
      const weather = yield* prompts.get("args-prompt", { city: "Paris", state: "Texas" })
      assert.deepStrictEqual(weather.messages, [
        { role: "user", content: { type: "text", text: "What's weather in Paris, Texas?" } },
      ])
      const resource = yield* prompts.get("resource-prompt", {
        resourceType: "Text",
        resourceId: "2",
      })
      assert.strictEqual(resource.messages[1]?.content.type, "resource")
      const simple = yield* prompts.get("simple-prompt")
      assert.strictEqual(simple.messages.length, 1)
    }),
  )

  it.live(
    "gives the server's refusal of missing arguments as a Server error, its words apart",
    () =>
      Effect.gen(function* () {
        const { prompts } = yield* everything()
        const error = yield* Effect.flip(prompts.get("args-prompt", { state: "Texas" }))
        assert.strictEqual(error.reason._tag, "Server")
        assert.strictEqual(
          error.message,
          "getting the prompt args-prompt failed: the server answered with error -32602",
        )
        assert.include(error.serverMessage, "city")
      }),
  )

  it.live("lists nothing from a server without prompts, and refuses to get one", () =>
    Effect.gen(function* () {
      const { prompts } = yield* McpToolbox.stdio({
        command: process.execPath,
        args: [referenceServer("filesystem"), tmpdir()],
      })
      assert.deepStrictEqual(yield* prompts.list, [])
      const error = yield* Effect.flip(prompts.get("summarize"))
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.strictEqual(
        error.message,
        "getting the prompt summarize: the server offers no prompts",
      )
    }),
  )
})

describe("McpPrompts, with an SDK server on 127.0.0.1", () => {
  it.live("follows nextCursor through every page", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp(() => {
        const server = new Server(
          { name: "paged", version: "1.0.0" },
          { capabilities: { prompts: {} } },
        )
        server.setRequestHandler(ListPromptsRequestSchema, (request) => {
          const page = Number(request.params?.cursor ?? 0)
          const prompts = [0, 1].map((i) => ({ name: `p${page}_${i}` }))
          return page < 2 ? { prompts, nextCursor: String(page + 1) } : { prompts }
        })
        return server
      })
      const { prompts } = yield* McpToolbox.http({ url })
      assert.deepStrictEqual(
        (yield* prompts.list).map((prompt) => prompt.name),
        ["p0_0", "p0_1", "p1_0", "p1_1", "p2_0", "p2_1"],
      )
    }),
  )
})
