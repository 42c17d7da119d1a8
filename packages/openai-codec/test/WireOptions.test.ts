import { assert, describe, it } from "@effect/vitest"
import { fc, it as prop } from "@fast-check/vitest"
import { Completion, Request, Tool } from "@svir/core"
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

/** A request core refuses, with core's words for why. */
const core = (request: Request.Request) => ({ request, message: Request.problem(request) })

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
    set: (request, logitBias) => OpenAiCodec.options(request, { logitBias }),
    wire: "logit_bias",
    sent: (bias) => Object.fromEntries(Object.entries(bias)),
    valid: fc.dictionary(
      fc.nat({ max: 200_000 }).map(String),
      fc.integer({ min: -100, max: 100 }),
      { maxKeys: 5 },
    ),
  }),
  logprobs: option<boolean>({
    set: (request, logprobs) => OpenAiCodec.options(request, { logprobs }),
    wire: "logprobs",
    sent: same,
    valid: fc.boolean(),
  }),
  parallelToolCalls: option({
    set: Request.parallelToolCalls,
    wire: "parallel_tool_calls",
    sent: same,
    valid: fc.boolean(),
  }),
  user: option<string>({
    set: (request, user) => OpenAiCodec.options(request, { user }),
    wire: "user",
    sent: same,
    valid: fc.string({ minLength: 1 }).filter((id) => id.trim() !== ""),
  }),
  serviceTier: option<OpenAiCodec.ServiceTier>({
    set: (request, serviceTier) => OpenAiCodec.options(request, { serviceTier }),
    wire: "service_tier",
    sent: same,
    valid: fc.constantFrom("auto", "default", "flex", "scale", "priority", "fast"),
  }),
  prediction: option<string>({
    set: (request, prediction) => OpenAiCodec.options(request, { prediction }),
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
  return values.topLogprobs === undefined
    ? out
    : OpenAiCodec.options(out, { topLogprobs: values.topLogprobs })
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
        OpenAiCodec.options({ logitBias: { 50256: -100, 3763: 1 }, logprobs: true }),
        OpenAiCodec.options({ topLogprobs: 3 }),
        Request.parallelToolCalls(false),
        OpenAiCodec.options({ user: "user-5f2a", serviceTier: "flex", prediction: "draft" }),
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
      fc.double({ min: 1, minExcluded: true, noNaN: true }).map((p) => core(Request.topP(base, p))),
      fc
        .double({ min: 2, minExcluded: true, noNaN: true })
        .map((penalty) => core(Request.frequencyPenalty(base, penalty))),
      fc
        .array(fc.string({ minLength: 1 }), { minLength: 5, maxLength: 9 })
        .map((stop) => core(Request.stop(base, stop))),
      fc.double({ noInteger: true, noNaN: true }).map((seed) => core(Request.seed(base, seed))),
      // The codec's own options, with the errors core gave them before they moved here (D66).
      fc.integer({ min: 101, max: 10_000 }).map((bias) => ({
        request: OpenAiCodec.options(base, { logitBias: { 50256: bias } }),
        message: `the logit bias of token 50256 must be between -100 and 100, not ${bias}`,
      })),
      fc.integer({ min: 21, max: 1000 }).map((count) => ({
        request: OpenAiCodec.options(base, { logprobs: true, topLogprobs: count }),
        message: `top logprobs must be a whole number from 0 to 20, not ${count}`,
      })),
      fc.integer({ min: 0, max: 20 }).map((count) => ({
        request: OpenAiCodec.options(base, { topLogprobs: count }),
        message: "top logprobs needs logprobs: set OpenAiCodec.options({ logprobs: true })",
      })),
      fc.constantFrom("", " ", "\t\n").map((user) => ({
        request: OpenAiCodec.options(base, { user }),
        message: "the end user id is empty",
      })),
      fc.constantFrom("-1", "1.5", "hello", "1e3", "").map((token) => ({
        request: OpenAiCodec.options(base, { logitBias: { [token]: 5 } }),
        message: `logit bias is keyed by token ids (whole numbers), not ${token}`,
      })),
    ),
  ])("an option out of range is refused before anything is written", ({ request, message }) =>
    Effect.runSync(
      Effect.gen(function* () {
        const error = yield* failure(request)
        assert.strictEqual(error.reason._tag, "Unsupported")
        assert.strictEqual(error.message, message)
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

describe("the codec's options (D66)", () => {
  it.effect("merge over those given before; undefined is not given", () =>
    Effect.gen(function* () {
      const request = base.pipe(
        OpenAiCodec.options({ serviceTier: "flex", user: "user-1" }),
        OpenAiCodec.options({ serviceTier: "priority", prediction: undefined }),
      )
      const body: Record<string, unknown> = { ...(yield* encode(request)) }
      assert.strictEqual(body.service_tier, "priority")
      assert.strictEqual(body.user, "user-1")
      assert.notProperty(body, "prediction")
      assert.deepStrictEqual(
        yield* encode(OpenAiCodec.options(base, { serviceTier: undefined })),
        yield* encode(base),
      )
    }),
  )

  it.effect("every tier of the type is sent as it is", () =>
    Effect.gen(function* () {
      // Keyed by the type: a tier added to it and not to the encoder fails here.
      const tiers: { readonly [T in OpenAiCodec.ServiceTier]: T } = {
        auto: "auto",
        default: "default",
        flex: "flex",
        scale: "scale",
        priority: "priority",
        fast: "fast",
      }
      for (const tier of Object.values(tiers)) {
        const body = yield* encode(OpenAiCodec.options(base, { serviceTier: tier }))
        assert.strictEqual(body.service_tier, tier)
      }
    }),
  )

  prop.prop([fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1, maxKeys: 4 })])(
    "options for another codec are ignored, whatever they hold",
    (others) =>
      Effect.runSync(
        Effect.gen(function* () {
          const request = base.pipe(
            OpenAiCodec.options({ serviceTier: "flex" }),
            Request.codecOptions("anthropic-messages", others),
          )
          assert.deepStrictEqual(
            yield* encode(request),
            yield* encode(OpenAiCodec.options(base, { serviceTier: "flex" })),
          )
        }),
      ),
  )

  it.effect("an option the codec does not have is refused, naming it", () =>
    Effect.gen(function* () {
      for (const key of ["serviceTeir", "endUser", "seed", "top_k", "__proto__", "0"]) {
        const error = yield* failure(Request.codecOptions(base, "openai-chat", { [key]: 1 }))
        assert.strictEqual(error.reason._tag, "Unsupported", key)
        assert.strictEqual(
          error.message,
          `OpenAiCodec.options has no option ${key}; it takes logitBias, logprobs, topLogprobs, serviceTier, prediction, user; a field of a server's own goes in Request.extra`,
        )
      }
    }),
  )

  it.effect("options that are not an object are refused", () =>
    Effect.gen(function* () {
      for (const given of [5, "flex", null, [1], true]) {
        // A request copied into a plain object can carry anything: the codec still checks.
        const request = {
          ...base,
          codecOptions: { "openai-chat": given },
        } as unknown as Request.Request
        const error = yield* failure(request)
        assert.strictEqual(error.reason._tag, "Unsupported", String(given))
        assert.match(error.message, /^OpenAiCodec\.options takes an object of options, not /)
      }
    }),
  )

  /** A value of the wrong type for each option, and the words of its error. */
  const wrongTypes: ReadonlyArray<readonly [string, unknown, string]> = [
    ["logitBias", [1, 2], "must be an object of token ids to biases, not an array"],
    ["logitBias", "50256", "must be an object of token ids to biases, not a string"],
    ["logprobs", "true", "must be a boolean, not a string"],
    ["logprobs", 1, "must be a boolean, not a number"],
    ["topLogprobs", "3", "must be a number, not a string"],
    ["serviceTier", "on_demand", "must be one of auto, default, flex, scale, priority, fast"],
    ["serviceTier", 1, "must be one of auto, default, flex, scale, priority, fast"],
    ["prediction", { type: "content", content: "x" }, "must be a string, not an object"],
    ["user", 42, "must be a string, not a number"],
  ]

  it.effect("an option of the wrong type is refused, naming the option, not its value", () =>
    Effect.gen(function* () {
      for (const [key, value, words] of wrongTypes) {
        const error = yield* failure(Request.codecOptions(base, "openai-chat", { [key]: value }))
        assert.strictEqual(error.reason._tag, "Unsupported", key)
        assert.include(error.message, `the option ${key} of OpenAiCodec.options ${words}`)
      }
      const bias = yield* failure(OpenAiCodec.options(base, { logitBias: { 7: "5" as never } }))
      assert.strictEqual(bias.message, "the logit bias of token 7 must be a number, not a string")
    }),
  )

  it.effect("a wrong option is refused before the context check, as core's problems are", () =>
    Effect.gen(function* () {
      const tight = base.pipe(Request.contextTokens(1000), Request.maxTokens(0))
      assert.strictEqual((yield* failure(tight)).reason._tag, "ContextOverflow")
      const wrong = OpenAiCodec.options(tight, { topLogprobs: 3 })
      assert.strictEqual((yield* failure(wrong)).reason._tag, "Unsupported")
    }),
  )
})

describe("the fields the codec claims (D66)", () => {
  it("are every field core has, and the codec says so", () => {
    // A field core adds later is refused until the codec claims it: decide, then add it here.
    assert.sameOrderedMembers([...OpenAiCodec.fields], [...Request.fields])
    assert.strictEqual(OpenAiCodec.make().fields, OpenAiCodec.fields)
  })

  const answered = Completion.make({
    text: "Looking.",
    reasoningBySource: [{ source: "reasoning_content", text: "The id is 42." }],
    finish: "stop",
  })
  const history = base.pipe(Request.assistant(answered), Request.user("And now?"))
  const other = Tool.make("other", "Another tool.")

  /** For each field, a way to set it that the wire must show: no claimed field is dropped. */
  const setting: { readonly [F in Request.Field]?: (request: Request.Request) => Request.Request } =
    {
      system: Request.system("Be brief."),
      tools: Request.tool(other),
      toolChoice: Request.toolChoice({ _tag: "Required" }),
      maxTokens: Request.maxTokens(64),
      temperature: Request.temperature(0.2),
      responseFormat: Request.responseFormat({ _tag: "Json" }),
      reasoningEffort: Request.reasoningEffort("low"),
      includeUsage: Request.includeUsage(true),
      sendReasoning: Request.sendReasoning(true),
      contextTokens: Request.contextTokens(8),
      seed: Request.seed(7),
      topP: Request.topP(0.9),
      stop: Request.stop("END"),
      presencePenalty: Request.presencePenalty(0.5),
      frequencyPenalty: Request.frequencyPenalty(0.5),
      parallelToolCalls: Request.parallelToolCalls(false),
      extra: Request.extra({ top_k: 20 }),
    }

  it.effect("each one claimed changes the body, or is refused: never dropped", () =>
    Effect.gen(function* () {
      const plain = yield* Effect.result(encode(history))
      for (const field of OpenAiCodec.fields) {
        const set = setting[field]
        if (set === undefined) return assert.fail(`no way to set ${field} in this test`)
        const sent = yield* Effect.result(encode(set(history)))
        assert.notDeepEqual(sent, plain, field)
      }
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
