import { assert, describe, it } from "@effect/vitest"
import { fc, it as prop } from "@fast-check/vitest"
import { Request, Tool } from "@svir/core"
import { Effect } from "effect"
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions"
import { OpenAiCodec } from "../src/index.js"

const lookup = Tool.make("lookup", "Find an order.", {
  type: "object",
  properties: { id: { type: "integer" } },
  required: ["id"],
})
const base = Request.make("gpt-4o-mini").pipe(Request.user("Hi"), Request.tool(lookup))

const encode = (request: Request.Request, lean = false) =>
  OpenAiCodec.encode(request, { stream: true, lean })

const failure = (request: Request.Request) => Effect.flip(encode(request))

/** The official client's name and shape of each option: the oracle the encoder is held to. */
interface Option<A> {
  readonly set: (request: Request.Request, value: A) => Request.Request
  readonly wire: keyof ChatCompletionCreateParamsStreaming
  readonly sent: (value: A) => unknown
  readonly valid: fc.Arbitrary<A>
}

const option = <A>(spec: Option<A>): Option<unknown> => spec as unknown as Option<unknown>
const same = <A>(value: A) => value

const optionsByName = {
  seed: option({ set: Request.seed, wire: "seed", sent: same, valid: fc.integer() }),
  topP: option({
    set: Request.topP,
    wire: "top_p",
    sent: same,
    valid: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  stop: option<string | ReadonlyArray<string>>({
    set: Request.stop,
    wire: "stop",
    sent: (stop) => (typeof stop === "string" ? stop : [...stop]),
    valid: fc.oneof(
      fc.string({ minLength: 1 }),
      fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 4 }),
    ),
  }),
  presencePenalty: option({
    set: Request.presencePenalty,
    wire: "presence_penalty",
    sent: same,
    valid: fc.double({ min: -2, max: 2, noNaN: true }),
  }),
  frequencyPenalty: option({
    set: Request.frequencyPenalty,
    wire: "frequency_penalty",
    sent: same,
    valid: fc.double({ min: -2, max: 2, noNaN: true }),
  }),
  logitBias: option<Readonly<Record<number, number>>>({
    set: Request.logitBias,
    wire: "logit_bias",
    sent: (bias) => Object.fromEntries(Object.entries(bias)),
    valid: fc.dictionary(
      fc.nat({ max: 200_000 }).map(String),
      fc.integer({ min: -100, max: 100 }),
      { maxKeys: 5 },
    ),
  }),
  logprobs: option({ set: Request.logprobs, wire: "logprobs", sent: same, valid: fc.boolean() }),
  parallelToolCalls: option({
    set: Request.parallelToolCalls,
    wire: "parallel_tool_calls",
    sent: same,
    valid: fc.boolean(),
  }),
  endUser: option({
    set: Request.endUser,
    wire: "user",
    sent: same,
    valid: fc.string({ minLength: 1 }).filter((id) => id.trim() !== ""),
  }),
  serviceTier: option<Request.ServiceTier>({
    set: Request.serviceTier,
    wire: "service_tier",
    sent: same,
    valid: fc.constantFrom("auto", "default", "flex", "scale", "priority", "fast"),
  }),
  prediction: option({
    set: Request.prediction,
    wire: "prediction",
    sent: (content: string) => ({ type: "content", content }),
    valid: fc.string(),
  }),
}

type Chosen = { readonly [K in keyof typeof optionsByName]?: unknown } & {
  readonly topLogprobs?: number
}

const chosen: fc.Arbitrary<Chosen> = fc
  .record(
    {
      ...Object.fromEntries(
        Object.entries(optionsByName).map(([name, spec]) => [name, spec.valid] as const),
      ),
      topLogprobs: fc.integer({ min: 0, max: 20 }),
    },
    { requiredKeys: [] },
  )
  // The official client: `logprobs` must be set to `true` if `top_logprobs` is used.
  .map((values) => (values.topLogprobs === undefined ? values : { ...values, logprobs: true }))

const apply = (request: Request.Request, values: Chosen): Request.Request => {
  let out = request
  for (const [name, spec] of Object.entries(optionsByName)) {
    const value = values[name as keyof typeof optionsByName]
    if (value !== undefined) out = spec.set(out, value)
  }
  return values.topLogprobs === undefined ? out : Request.topLogprobs(out, values.topLogprobs)
}

describe("wire options", () => {
  it.effect("every option is sent under the official client's name and shape", () =>
    Effect.gen(function* () {
      const request = base.pipe(
        Request.seed(7),
        Request.topP(0.9),
        Request.stop(["\n\n", "END"]),
        Request.presencePenalty(0.5),
        Request.frequencyPenalty(-0.5),
        Request.logitBias({ 50256: -100, 3763: 1 }),
        Request.logprobs(true),
        Request.topLogprobs(3),
        Request.parallelToolCalls(false),
        Request.endUser("user-5f2a"),
        Request.serviceTier("flex"),
        Request.prediction("draft"),
      )
      const body = yield* encode(request)
      // Typed by the official client: a name or a shape it does not have does not compile.
      const expected: ChatCompletionCreateParamsStreaming = {
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
        seed: 7,
        top_p: 0.9,
        stop: ["\n\n", "END"],
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
        logit_bias: { "50256": -100, "3763": 1 },
        logprobs: true,
        top_logprobs: 3,
        parallel_tool_calls: false,
        user: "user-5f2a",
        service_tier: "flex",
        prediction: { type: "content", content: "draft" },
        tools: [
          {
            type: "function",
            function: {
              name: "lookup",
              description: "Find an order.",
              parameters: lookup.inputSchema,
            },
          },
        ],
      }
      assert.deepStrictEqual<unknown>(body, expected)
      // And the encoder's own type of it is one of the official client's.
      if (body.stream !== true) return assert.fail("a streamed body without stream: true")
      const official: ChatCompletionCreateParamsStreaming = body
      assert.strictEqual(official.seed, 7)
    }),
  )

  prop.prop([chosen])("each option set is sent, and nothing else (D41, D48)", (values) =>
    Effect.runSync(
      Effect.gen(function* () {
        const body: Record<string, unknown> = { ...(yield* encode(apply(base, values))) }
        for (const [name, spec] of Object.entries(optionsByName)) {
          const value = values[name as keyof typeof optionsByName]
          if (value === undefined) assert.notProperty(body, spec.wire, name)
          else assert.deepStrictEqual(body[spec.wire], spec.sent(value), name)
        }
        assert.strictEqual(body.top_logprobs, values.topLogprobs)
      }),
    ),
  )

  prop.prop([chosen])(
    "lean leaves out the tier, the end user and the prediction, and keeps sampling (D48)",
    (values) =>
      Effect.runSync(
        Effect.gen(function* () {
          const request = apply(base, values)
          const full: Record<string, unknown> = { ...(yield* encode(request)) }
          const lean: Record<string, unknown> = { ...(yield* encode(request, true)) }
          for (const field of Object.keys(full)) {
            if (OpenAiCodec.optionalFields.includes(field)) assert.notProperty(lean, field)
            else assert.deepStrictEqual(lean[field], full[field], field)
          }
          assert.includeMembers(
            ["service_tier", "user", "prediction"],
            OpenAiCodec.optionalFields.filter((field) => field in full),
          )
        }),
      ),
  )

  prop.prop([
    fc.oneof(
      fc.double({ min: 1, minExcluded: true, noNaN: true }).map((p) => Request.topP(base, p)),
      fc
        .double({ min: 2, minExcluded: true, noNaN: true })
        .map((penalty) => Request.frequencyPenalty(base, penalty)),
      fc.integer({ min: 101, max: 10_000 }).map((bias) => Request.logitBias(base, { 50256: bias })),
      fc
        .integer({ min: 21, max: 1000 })
        .map((count) => base.pipe(Request.logprobs(true), Request.topLogprobs(count))),
      fc.integer({ min: 0, max: 20 }).map((count) => Request.topLogprobs(base, count)),
      fc
        .array(fc.string({ minLength: 1 }), { minLength: 5, maxLength: 9 })
        .map((stop) => Request.stop(base, stop)),
      fc.double({ noInteger: true, noNaN: true }).map((seed) => Request.seed(base, seed)),
    ),
  ])("an option out of range is refused before anything is written", (request) =>
    Effect.runSync(
      Effect.gen(function* () {
        const error = yield* failure(request)
        assert.strictEqual(error.reason._tag, "Unsupported")
        assert.strictEqual(error.message, Request.problem(request))
      }),
    ),
  )

  it.effect("parallel_tool_calls goes only with tools: OpenAI refuses it alone (D49)", () =>
    Effect.gen(function* () {
      const alone = Request.make("m").pipe(Request.user("Hi"), Request.parallelToolCalls(false))
      assert.notProperty(yield* encode(alone), "parallel_tool_calls")
      const offered = alone.pipe(Request.tool(lookup))
      assert.propertyVal(yield* encode(offered), "parallel_tool_calls", false)
    }),
  )
})

describe("extra fields (D50)", () => {
  it.effect("go into the body as they are: vLLM's template switches, OpenRouter's routing", () =>
    Effect.gen(function* () {
      const request = Request.make("Qwen/Qwen3-8B").pipe(
        Request.user("Hi"),
        Request.extra({ chat_template_kwargs: { enable_thinking: false }, top_k: 20 }),
        Request.extra({ provider: { order: ["deepinfra"], allow_fallbacks: false } }),
      )
      assert.deepStrictEqual<unknown>(yield* OpenAiCodec.encode(request), {
        model: "Qwen/Qwen3-8B",
        messages: [{ role: "user", content: "Hi" }],
        chat_template_kwargs: { enable_thinking: false },
        top_k: 20,
        provider: { order: ["deepinfra"], allow_fallbacks: false },
      })
    }),
  )

  it.effect("never replace a field the encoder writes: a Config error names it", () =>
    Effect.gen(function* () {
      const clash = base.pipe(Request.temperature(0.2), Request.extra({ temperature: 0.9 }))
      const error = yield* failure(clash)
      assert.strictEqual(error.reason._tag, "Config")
      assert.include(error.message, "the extra field temperature is one the encoder writes")
      for (const framing of ["model", "messages", "stream", "stream_options"]) {
        const refused = yield* failure(Request.extra(base, { [framing]: 1 }))
        assert.strictEqual(refused.reason._tag, "Config", framing)
        const whole = yield* Effect.flip(
          OpenAiCodec.encode(Request.extra(base, { [framing]: 1 }), { stream: false }),
        )
        assert.strictEqual(whole.reason._tag, "Config", `${framing}, not streamed`)
      }
      const offered = yield* failure(Request.extra(base, { tools: [] }))
      assert.strictEqual(offered.reason._tag, "Config")
    }),
  )

  it.effect("may give a field the request leaves unset; lean leaves out the optional ones", () =>
    Effect.gen(function* () {
      // A reasoning effort newer than the codec's type, a tier of Groq's.
      const request = base.pipe(
        Request.extra({ reasoning_effort: "xhigh", service_tier: "on_demand", top_k: 20 }),
      )
      const full: Record<string, unknown> = { ...(yield* encode(request)) }
      assert.deepInclude(full, { reasoning_effort: "xhigh", service_tier: "on_demand", top_k: 20 })
      const lean: Record<string, unknown> = { ...(yield* encode(request, true)) }
      assert.notProperty(lean, "reasoning_effort")
      assert.notProperty(lean, "service_tier")
      assert.strictEqual(lean.top_k, 20)
    }),
  )

  it.effect("must be JSON, no deeper than the nesting bound", () =>
    Effect.gen(function* () {
      for (const value of [10n, () => 1, undefined, Symbol("x")]) {
        const error = yield* failure(Request.extra(base, { odd: value }))
        assert.strictEqual(error.reason._tag, "Unsupported")
        assert.strictEqual(error.message, "the extra field odd is not a JSON value")
      }
      let deep: unknown = 1
      for (let i = 0; i < 200; i++) deep = [deep]
      const error = yield* failure(Request.extra(base, { deep }))
      assert.strictEqual(error.reason._tag, "Unsupported")
      assert.include(error.message, "an extra field nests deeper than 128 levels")
      const cycle: Record<string, unknown> = {}
      cycle.self = cycle
      assert.strictEqual(
        (yield* failure(Request.extra(base, { cycle }))).reason._tag,
        "Unsupported",
      )
    }),
  )

  it.effect("count toward the context size", () =>
    Effect.gen(function* () {
      const fits = base.pipe(Request.contextTokens(1000), Request.maxTokens(10))
      yield* encode(fits)
      const error = yield* failure(fits.pipe(Request.extra({ padding: "x".repeat(2000) })))
      assert.strictEqual(error.reason._tag, "ContextOverflow")
    }),
  )
})
