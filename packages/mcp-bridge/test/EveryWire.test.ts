/**
 * An MCP server's tools on every wire: `@modelcontextprotocol/server-everything` over stdio,
 * bridged, answered in `@svir/loop` through `@svir/client`, against `@svir/testing`'s scripted
 * server speaking Chat Completions, Messages or Responses. Only the codec changes.
 */

import { afterEach, assert, describe, it } from "@effect/vitest"
import { AnthropicCodec } from "@svir/anthropic"
import { Client } from "@svir/client"
import { type Codec, Request } from "@svir/core"
import { Loop } from "@svir/loop"
import { ResponsesCodec } from "@svir/openai-responses"
import { Answer, ScriptedServer } from "@svir/testing"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft, referenceServer } from "./servers.js"

const wires: ReadonlyArray<{
  readonly wire: string
  readonly codec: Codec.Codec | undefined
  readonly path: string
}> = [
  { wire: "Chat Completions", codec: undefined, path: "/v1/chat/completions" },
  { wire: "Messages", codec: AnthropicCodec.make(), path: "/v1/messages" },
  { wire: "Responses", codec: ResponsesCodec.make(), path: "/v1/responses" },
]

describe("an MCP server's tools on every wire", () => {
  afterEach(assertNoChildLeft)

  for (const { wire, codec, path } of wires) {
    it.live(`${wire}: the model's call runs on the server and its result goes back`, () =>
      Effect.gen(function* () {
        const toolbox = yield* McpToolbox.stdio({
          command: process.execPath,
          args: [referenceServer("everything"), "stdio"],
        })
        const server = yield* ScriptedServer.start([
          Answer.toolCalls([{ name: "get-sum", arguments: { a: 2, b: 40 } }]),
          Answer.text("42."),
        ])
        const client = yield* Client.make({
          baseUrl: server.url,
          apiKey: "sk-test",
          retry: false,
          codec,
        }).pipe(Effect.provide(FetchHttpClient.layer))
        const request = yield* Request.make("scripted").pipe(
          Request.user("What is 2 + 40? Use the tool."),
          Request.maxTokens(1024),
          Request.toolsFrom(toolbox),
        )
        const result = yield* Loop.run({ send: client.stream, toolbox, request })

        assert.strictEqual(result.text, "42.")
        assert.deepStrictEqual(
          result.steps[0]?.results.map((r) => [r.content, r.isError]),
          [["The sum of 2 and 40 is 42.", false]],
        )
        assert.deepStrictEqual(
          server.requests.map((r) => r.path),
          [path, path],
        )
        assert.include(JSON.stringify(server.bodies[0]), '"get-sum"')
        assert.include(JSON.stringify(server.bodies[1]), "The sum of 2 and 40 is 42.")
      }).pipe(Effect.scoped),
    )
  }
})
