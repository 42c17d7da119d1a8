import { fileURLToPath } from "node:url"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { IdempotencyKey, ToolCall } from "@svir/core"
import { Effect, Tracer } from "effect"
import { McpToolbox } from "../src/index.js"
import { assertNoChildLeft } from "./servers.js"

const metaServer = fileURLToPath(new URL("./fixtures/meta-stdio.mjs", import.meta.url))

const key = "run-1/3/call_1"

/** The server of `fixtures/meta-stdio.mjs`, in the era `era` asks for, and its protocol revision. */
const metaToolbox = (era: "modern" | "legacy", options: McpToolbox.Options = {}) =>
  McpToolbox.stdio({ command: process.execPath, args: [metaServer, era] }, options)

/** The `_meta` the server's handler saw for one call of "meta". */
const seenMeta = (toolbox: McpToolbox.McpToolbox) =>
  Effect.map(toolbox.call(ToolCall.make("m1", "meta", "{}")), (result) => {
    assert.isFalse(result.isError, result.content)
    return JSON.parse(result.content) as Record<string, unknown> | null
  })

/** A tracer whose spans are kept, as an exporting tracer's would be sent. */
const keepingTracer = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    },
  })
  return { spans, tracer }
}

describe("McpToolbox sends the call's idempotency key in params._meta (D54)", () => {
  afterEach(assertNoChildLeft)

  for (const [era, revision] of [
    ["legacy", "2025-11-25"],
    ["modern", "2026-07-28"],
  ] as const) {
    it.live(`to a server speaking ${revision}: the key when set, nothing when not`, () =>
      Effect.gen(function* () {
        const toolbox = yield* metaToolbox(era)
        assert.strictEqual(toolbox.protocolVersion, revision)
        const keyed = yield* seenMeta(toolbox).pipe(IdempotencyKey.within(key))
        assert.strictEqual(keyed?.["svir/idempotencyKey"], key)
        // The SDK's own progressToken is still there beside it.
        assert.isNumber(keyed?.progressToken)
        const plain = yield* seenMeta(toolbox)
        assert.isNotNull(plain)
        assert.notProperty(plain, "svir/idempotencyKey")
        assert.isNumber(plain?.progressToken)
      }),
    )
  }

  it.live("beside the traceparent of propagateTraceContext", () =>
    Effect.gen(function* () {
      const { spans, tracer } = keepingTracer()
      const seen = yield* Effect.gen(function* () {
        const toolbox = yield* metaToolbox("legacy", { propagateTraceContext: true })
        return yield* seenMeta(toolbox).pipe(IdempotencyKey.within(key))
      }).pipe(Effect.withTracer(tracer))
      const span = spans.find((span) => span.name === "tools/call meta")
      assert.isDefined(span)
      assert.deepStrictEqual(
        { ...seen, progressToken: undefined },
        {
          traceparent: `00-${span!.traceId}-${span!.spanId}-01`,
          "svir/idempotencyKey": key,
          progressToken: undefined,
        },
      )
    }),
  )
})
