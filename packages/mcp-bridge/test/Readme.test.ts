import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Completion, type Request, ToolCall } from "@svir/core"
import { Effect } from "effect"
import { askAboutFiles, type Complete } from "./examples/filesystemLoop.js"
import { assertNoChildLeft, referenceServer } from "./servers.js"

/**
 * A stand-in for a model: it lists the folder first, then answers with what the tool said. It
 * keeps every request it was sent.
 */
const scriptedModel = (folder: string) => {
  const sent: Array<Request.Request> = []
  const complete: Complete = (request) =>
    Effect.sync(() => {
      sent.push(request)
      const last = request.messages.at(-1)
      return last?._tag === "Tool"
        ? Completion.make({ text: `I see: ${last.result.content}`, finish: "stop" })
        : Completion.make({
            calls: [
              ToolCall.make("call_1", "files__list_directory", JSON.stringify({ path: folder })),
            ],
            finish: "tool_calls",
          })
    })
  return { complete, sent }
}

describe("the README's tool loop", () => {
  afterEach(assertNoChildLeft)

  it("shows the code of test/examples, word for word", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
    for (const file of ["filesystemLoop.ts", "severalServers.ts"]) {
      const example = readFileSync(new URL(`./examples/${file}`, import.meta.url), "utf8")
      const code = example
        .slice(example.indexOf("\n") + 1)
        .replace('"../../src/index.js"', '"@svir/mcp-bridge"')
      assert.include(readme, code, file)
    }
  })

  it.live("bridges a filesystem server into the loop and answers from its result", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "svir-readme-"))),
      (folder) =>
        Effect.gen(function* () {
          writeFileSync(join(folder, "plan.md"), "# plan\n")
          const model = scriptedModel(folder)
          const answer = yield* askAboutFiles(
            model.complete,
            { command: process.execPath, args: [referenceServer("filesystem"), folder] },
            "What is in the folder?",
          )
          assert.strictEqual(answer, "I see: [FILE] plan.md")
          assert.strictEqual(model.sent.length, 2)
          const offered = model.sent[0]?.tools.map((tool) => tool.name) ?? []
          assert.include(offered, "files__list_directory")
          assert.deepStrictEqual(
            model.sent[1]?.messages.map((message) => message._tag),
            ["User", "Assistant", "Tool"],
          )
        }),
      (folder) => Effect.sync(() => rmSync(folder, { recursive: true, force: true })),
    ),
  )
})
