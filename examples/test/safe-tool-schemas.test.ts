import { assert, describe, it } from "@effect/vitest"
import { ToolSchema } from "@svir/openai-codec"
import { Effect, Logger } from "effect"
import * as Example from "../src/safe-tool-schemas.js"

describe("safe tool schemas", () => {
  it.effect("fits every tool, logs each change, and the body carries what OpenAI takes", () =>
    Effect.gen(function* () {
      const logged: Array<string> = []
      const keep = Logger.make(({ message }) => logged.push(String(message)))
      const { tools, changes, body } = yield* Example.fitted.pipe(
        Effect.provide(Logger.layer([keep])),
      )
      assert.deepStrictEqual(
        tools.map((tool) => tool.name),
        ["list_schedules", "convert", "search"],
      )
      assert.strictEqual(logged.length, changes.length)
      assert.include(logged.join("\n"), "tool list_schedules /description: cut the description")
      assert.deepStrictEqual(ToolSchema.problems(tools), [])
      const sent = body.tools ?? []
      assert.isTrue(sent.every((tool) => (tool.function.description ?? "").length <= 1024))
      assert.notInclude(JSON.stringify(sent), "$ref")
      assert.strictEqual(sent[2]?.function.strict, true)
      assert.strictEqual(
        yield* Example.refused,
        'Unsupported: the tool shout cannot be sent: function parameters must be an object (type "object"), not type "string": describe the arguments as an object with one property for each',
      )
    }),
  )
})
