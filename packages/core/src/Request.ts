/**
 * An immutable, pipeable builder of what is sent to a model.
 *
 * @since 0.2.0
 * @module
 */
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Pipeable from "effect/Pipeable"
import type * as Completion from "./Completion.js"
import * as Message from "./Message.js"
import * as SvirError from "./SvirError.js"
import * as Tool from "./Tool.js"
import type * as Toolbox from "./Toolbox.js"
import * as ToolChoice from "./ToolChoice.js"
import type * as ToolResult from "./ToolResult.js"

/**
 * The form of the answer: free text, any JSON object, or JSON that fits a schema.
 *
 * @since 0.2.0
 * @category models
 */
export type ResponseFormat =
  | { readonly _tag: "Text" }
  | { readonly _tag: "Json" }
  | {
      readonly _tag: "JsonSchema"
      readonly name: string
      readonly schema: Tool.JsonSchema
      readonly description?: string | undefined
      readonly strict?: boolean | undefined
    }

/**
 * How hard a reasoning model thinks before it answers.
 *
 * @since 0.2.0
 * @category models
 */
export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high"

/**
 * Options of one wire or another, by the name of the codec they are for (`"openai-chat"`,
 * `"anthropic-messages"`). A codec reads the options under its own name and ignores the others,
 * so one request can carry options for several wires. The values are JSON-like data (objects,
 * arrays, strings, finite numbers, booleans, `null`), so that a request stays data that can be
 * stored and sent on.
 *
 * @since 0.2.0
 * @category models
 */
export type CodecOptions = Readonly<Record<string, Readonly<Record<string, unknown>>>>

/**
 * What is sent to a model. Build it with {@link make} and the functions of this module, each of
 * which returns a new request.
 *
 * @since 0.2.0
 * @category models
 */
export interface Request extends Pipeable.Pipeable {
  readonly model: string
  readonly system: string | undefined
  readonly messages: ReadonlyArray<Message.Message>
  readonly tools: ReadonlyArray<Tool.Tool>
  readonly toolChoice: ToolChoice.ToolChoice
  readonly maxTokens: number | undefined
  readonly temperature: number | undefined
  readonly responseFormat: ResponseFormat | undefined
  readonly reasoningEffort: ReasoningEffort | undefined
  /** Ask the server to report usage in a streamed answer; the wire's default when left out. */
  readonly includeUsage: boolean | undefined
  /** Send each assistant turn's reasoning back, under the source it came with. */
  readonly sendReasoning: boolean | undefined
  /** The model's context size in tokens: a request that cannot fit is refused before sending. */
  readonly contextTokens: number | undefined
  /** A seed for sampling, so that the same request tends to give the same answer. @since 0.2.0 */
  readonly seed: number | undefined
  /** Nucleus sampling: only the tokens of this much probability mass, 0 to 1. @since 0.2.0 */
  readonly topP: number | undefined
  /** Where the answer stops: one sequence, or up to 4. @since 0.2.0 */
  readonly stop: string | ReadonlyArray<string> | undefined
  /** Penalizes tokens already present in the answer, -2 to 2. @since 0.2.0 */
  readonly presencePenalty: number | undefined
  /** Penalizes tokens by how often they are already present, -2 to 2. @since 0.2.0 */
  readonly frequencyPenalty: number | undefined
  /** Whether the model may make several calls in one answer. @since 0.2.0 */
  readonly parallelToolCalls: boolean | undefined
  /** Fields of the server's own, added to the body as they are (see {@link extra}). @since 0.2.0 */
  readonly extra: Readonly<Record<string, unknown>> | undefined
  /** Options of one wire or another, by the codec's name (see {@link codecOptions}). @since 0.2.0 */
  readonly codecOptions: CodecOptions | undefined
}

/** Every field but the messages, which a request keeps in its own way (DECISIONS.md, D9). */
type Settings = Omit<Request, "pipe" | "messages">

const settingsOf = (self: Request): Settings => ({
  model: self.model,
  system: self.system,
  tools: self.tools,
  toolChoice: self.toolChoice,
  maxTokens: self.maxTokens,
  temperature: self.temperature,
  responseFormat: self.responseFormat,
  reasoningEffort: self.reasoningEffort,
  includeUsage: self.includeUsage,
  sendReasoning: self.sendReasoning,
  contextTokens: self.contextTokens,
  seed: self.seed,
  topP: self.topP,
  stop: self.stop,
  presencePenalty: self.presencePenalty,
  frequencyPenalty: self.frequencyPenalty,
  parallelToolCalls: self.parallelToolCalls,
  extra: self.extra,
  codecOptions: self.codecOptions,
})

/**
 * A request's messages are the first `length` entries of a backing array that the requests made
 * one from another share, so that adding a turn does not copy the history (DECISIONS.md, D9).
 * Adding to a request whose messages end where the backing array ends pushes in place; adding to
 * any other copies its messages first. So an entry below a request's length never changes, and
 * `messages`, copied out of the backing array once when first read, is what the caller would have
 * got from a request that copied on every step. `messages` is an own, enumerable property, as a
 * plain field would be, so that spreading or copying a request copies its messages.
 */
class RequestImpl implements Request {
  declare readonly model: string
  declare readonly system: string | undefined
  declare readonly messages: ReadonlyArray<Message.Message>
  declare readonly tools: ReadonlyArray<Tool.Tool>
  declare readonly toolChoice: ToolChoice.ToolChoice
  declare readonly maxTokens: number | undefined
  declare readonly temperature: number | undefined
  declare readonly responseFormat: ResponseFormat | undefined
  declare readonly reasoningEffort: ReasoningEffort | undefined
  declare readonly includeUsage: boolean | undefined
  declare readonly sendReasoning: boolean | undefined
  declare readonly contextTokens: number | undefined
  declare readonly seed: number | undefined
  declare readonly topP: number | undefined
  declare readonly stop: string | ReadonlyArray<string> | undefined
  declare readonly presencePenalty: number | undefined
  declare readonly frequencyPenalty: number | undefined
  declare readonly parallelToolCalls: boolean | undefined
  declare readonly extra: Readonly<Record<string, unknown>> | undefined
  declare readonly codecOptions: CodecOptions | undefined
  #backing: Array<Message.Message>
  #length: number
  #messages: ReadonlyArray<Message.Message> | undefined = undefined

  constructor(settings: Settings, backing: Array<Message.Message>, length: number) {
    this.#backing = backing
    this.#length = length
    // Assigned one by one, in the order the fields always had.
    this.model = settings.model
    this.system = settings.system
    Object.defineProperty(this, "messages", RequestImpl.#messagesProperty)
    this.tools = settings.tools
    this.toolChoice = settings.toolChoice
    this.maxTokens = settings.maxTokens
    this.temperature = settings.temperature
    this.responseFormat = settings.responseFormat
    this.reasoningEffort = settings.reasoningEffort
    this.includeUsage = settings.includeUsage
    this.sendReasoning = settings.sendReasoning
    this.contextTokens = settings.contextTokens
    this.seed = settings.seed
    this.topP = settings.topP
    this.stop = settings.stop
    this.presencePenalty = settings.presencePenalty
    this.frequencyPenalty = settings.frequencyPenalty
    this.parallelToolCalls = settings.parallelToolCalls
    this.extra = settings.extra
    this.codecOptions = settings.codecOptions
  }

  static readonly #messagesProperty: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: RequestImpl) {
      this.#messages ??= this.#backing.slice(0, this.#length)
      return this.#messages
    },
    set(this: RequestImpl, messages: ReadonlyArray<Message.Message>) {
      this.#backing = [...messages]
      this.#length = messages.length
      this.#messages = messages
    },
  }

  /**
   * A request with `settings` and the messages of `self` followed by `more`. `self` may be a copy
   * made outside this module (`Object.assign`, a plain object): its messages are then copied.
   */
  static of(self: Request, settings: Settings, more: ReadonlyArray<Message.Message>): RequestImpl {
    let backing: Array<Message.Message>
    let length: number
    if (#backing in self) {
      backing = self.#backing
      length = self.#length
      if (more.length > 0 && length !== backing.length) backing = backing.slice(0, length)
    } else {
      backing = [...self.messages]
      length = backing.length
    }
    for (const message of more) backing.push(message)
    return new RequestImpl(settings, backing, length + more.length)
  }

  pipe() {
    // biome-ignore lint/complexity/noArguments: the pipe protocol passes its functions this way
    return Pipeable.pipeArguments(this, arguments)
  }

  /** Shown by Node's `util.inspect` as a plain record, messages included, as it always was. */
  [Symbol.for("nodejs.util.inspect.custom")]() {
    return { ...this }
  }
}

const update = (self: Request, patch: Partial<Settings>): Request =>
  RequestImpl.of(self, { ...settingsOf(self), ...patch }, [])

/** Adds messages, copying none of those already there when `self` is the newest request (D9). */
const append = (self: Request, more: ReadonlyArray<Message.Message>): Request =>
  RequestImpl.of(self, settingsOf(self), more)

/**
 * A request to a model, with nothing in it yet.
 *
 * @example
 * ```ts
 * import { Request, Tool, ToolChoice } from "@svir/core"
 *
 * const label = Tool.make("label", "Label a support ticket by its topic.", {
 *   type: "object",
 *   properties: { topic: { type: "string", enum: ["billing", "bug", "other"] } },
 *   required: ["topic"],
 * })
 *
 * const request = Request.make("qwen3-27b").pipe(
 *   Request.tool(label),
 *   Request.toolChoice(ToolChoice.tool("label")),
 *   Request.user("My invoice is wrong."),
 * )
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (model: string): Request =>
  new RequestImpl(
    {
      model,
      system: undefined,
      tools: [],
      toolChoice: ToolChoice.auto,
      maxTokens: undefined,
      temperature: undefined,
      responseFormat: undefined,
      reasoningEffort: undefined,
      includeUsage: undefined,
      sendReasoning: undefined,
      contextTokens: undefined,
      seed: undefined,
      topP: undefined,
      stop: undefined,
      presencePenalty: undefined,
      frequencyPenalty: undefined,
      parallelToolCalls: undefined,
      extra: undefined,
      codecOptions: undefined,
    },
    [],
    0,
  )

/**
 * Sets the model.
 *
 * @since 0.2.0
 * @category combinators
 */
export const model: {
  (model: string): (self: Request) => Request
  (self: Request, model: string): Request
} = dual(2, (self: Request, model: string) => update(self, { model }))

/**
 * Sets the system prompt, sent before every turn.
 *
 * @since 0.2.0
 * @category combinators
 */
export const system: {
  (text: string): (self: Request) => Request
  (self: Request, text: string): Request
} = dual(2, (self: Request, text: string) => update(self, { system: text }))

/**
 * Adds messages after those already there.
 *
 * @since 0.2.0
 * @category combinators
 */
export const messages: {
  (messages: Iterable<Message.Message>): (self: Request) => Request
  (self: Request, messages: Iterable<Message.Message>): Request
} = dual(2, (self: Request, messages: Iterable<Message.Message>) =>
  append(self, Array.from(messages)),
)

/**
 * Adds a user turn: text, or parts (text, images, files).
 *
 * @example
 * ```ts
 * import { Message, Request } from "@svir/core"
 *
 * Request.make("gpt-4o-mini").pipe(
 *   Request.user([Message.text("What is in this file?"), Message.file("a.txt", "text/plain", "hi")]),
 * )
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const user: {
  (content: string | ReadonlyArray<Message.Part>): (self: Request) => Request
  (self: Request, content: string | ReadonlyArray<Message.Part>): Request
} = dual(2, (self: Request, content: string | ReadonlyArray<Message.Part>) =>
  append(self, [Message.user(content)]),
)

/**
 * Adds the assistant turn of a completion, with the calls it made and their ids. Add it before the
 * results of those calls.
 *
 * @since 0.2.0
 * @category combinators
 */
export const assistant: {
  (completion: Completion.Completion): (self: Request) => Request
  (self: Request, completion: Completion.Completion): Request
} = dual(2, (self: Request, completion: Completion.Completion) =>
  append(self, [Message.assistant(completion)]),
)

/**
 * Adds the results of the calls of the assistant turn before them, in the order given.
 *
 * @since 0.2.0
 * @category combinators
 */
export const toolResults: {
  (results: Iterable<ToolResult.ToolResult>): (self: Request) => Request
  (self: Request, results: Iterable<ToolResult.ToolResult>): Request
} = dual(2, (self: Request, results: Iterable<ToolResult.ToolResult>) =>
  append(self, Array.from(results, Message.toolResult)),
)

/**
 * Offers a tool. A tool offered under a name already offered replaces it.
 *
 * @since 0.2.0
 * @category combinators
 */
export const tool: {
  (tool: Tool.Tool): (self: Request) => Request
  (self: Request, tool: Tool.Tool): Request
} = dual(2, (self: Request, tool: Tool.Tool) => tools(self, [tool]))

/**
 * Offers tools. A tool offered under a name already offered replaces it.
 *
 * @since 0.2.0
 * @category combinators
 */
export const tools: {
  (tools: Iterable<Tool.Tool>): (self: Request) => Request
  (self: Request, tools: Iterable<Tool.Tool>): Request
} = dual(2, (self: Request, tools: Iterable<Tool.Tool>) => {
  const byName = new Map(self.tools.map((tool) => [tool.name, tool]))
  for (const tool of tools) byName.set(tool.name, tool)
  return update(self, { tools: [...byName.values()] })
})

/**
 * Offers the tools a toolbox offers now.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Request, Toolbox } from "@svir/core"
 *
 * declare const toolbox: Toolbox.Toolbox
 * const request = Request.make("gpt-4o-mini").pipe(Request.user("Hi"), Request.toolsFrom(toolbox))
 * // Effect<Request>
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const toolsFrom: {
  <R>(toolbox: Toolbox.Toolbox<R>): (self: Request) => Effect.Effect<Request, never, R>
  <R>(self: Request, toolbox: Toolbox.Toolbox<R>): Effect.Effect<Request, never, R>
} = dual(2, <R>(self: Request, toolbox: Toolbox.Toolbox<R>) =>
  Effect.map(toolbox.tools, (offered) => tools(self, offered)),
)

/**
 * Decides whether the model must, may or may not call a tool. Checked by {@link validate}.
 *
 * @since 0.2.0
 * @category combinators
 */
export const toolChoice: {
  (choice: ToolChoice.ToolChoice): (self: Request) => Request
  (self: Request, choice: ToolChoice.ToolChoice): Request
} = dual(2, (self: Request, choice: ToolChoice.ToolChoice) => update(self, { toolChoice: choice }))

/**
 * Bounds the tokens of the answer.
 *
 * @since 0.2.0
 * @category combinators
 */
export const maxTokens: {
  (tokens: number): (self: Request) => Request
  (self: Request, tokens: number): Request
} = dual(2, (self: Request, tokens: number) => update(self, { maxTokens: tokens }))

/**
 * Sets the sampling temperature.
 *
 * @since 0.2.0
 * @category combinators
 */
export const temperature: {
  (temperature: number): (self: Request) => Request
  (self: Request, temperature: number): Request
} = dual(2, (self: Request, temperature: number) => update(self, { temperature }))

/**
 * Asks for text, any JSON object, or JSON that fits a schema.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("gpt-4o-mini").pipe(
 *   Request.responseFormat({ _tag: "JsonSchema", name: "city", schema: { type: "object" } }),
 * )
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const responseFormat: {
  (format: ResponseFormat): (self: Request) => Request
  (self: Request, format: ResponseFormat): Request
} = dual(2, (self: Request, format: ResponseFormat) => update(self, { responseFormat: format }))

/**
 * Sets how hard a reasoning model thinks.
 *
 * @since 0.2.0
 * @category combinators
 */
export const reasoningEffort: {
  (effort: ReasoningEffort): (self: Request) => Request
  (self: Request, effort: ReasoningEffort): Request
} = dual(2, (self: Request, effort: ReasoningEffort) => update(self, { reasoningEffort: effort }))

/**
 * Asks the server to report usage in a streamed answer (`true`), or not to (`false`).
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("gpt-4o-mini").pipe(Request.includeUsage(true), Request.user("Hi"))
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const includeUsage: {
  (include: boolean): (self: Request) => Request
  (self: Request, include: boolean): Request
} = dual(2, (self: Request, include: boolean) => update(self, { includeUsage: include }))

/**
 * Sends each assistant turn's reasoning back under the source it came with, for servers that
 * want it during multi-turn tool calls (DeepSeek, Kimi and GLM style). Off when not set.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("deepseek-reasoner").pipe(Request.sendReasoning(true))
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const sendReasoning: {
  (send: boolean): (self: Request) => Request
  (self: Request, send: boolean): Request
} = dual(2, (self: Request, send: boolean) => update(self, { sendReasoning: send }))

/**
 * Sets the model's context size in tokens. A request whose estimated prompt plus `maxTokens`
 * cannot fit is refused with a ContextOverflow before anything is sent.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("qwen3-27b").pipe(Request.contextTokens(32_768), Request.maxTokens(1024))
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const contextTokens: {
  (tokens: number): (self: Request) => Request
  (self: Request, tokens: number): Request
} = dual(2, (self: Request, tokens: number) => update(self, { contextTokens: tokens }))

/**
 * Sets a seed for sampling: the same request with the same seed tends to give the same answer, on
 * servers that support it. A whole number.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("qwen3-27b").pipe(Request.seed(42), Request.temperature(0.7))
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const seed: {
  (seed: number): (self: Request) => Request
  (self: Request, seed: number): Request
} = dual(2, (self: Request, seed: number) => update(self, { seed }))

/**
 * Sets nucleus sampling: only the likeliest tokens whose probabilities add up to `p` are
 * considered. From 0 to 1.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("qwen3-27b").pipe(Request.topP(0.9))
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const topP: {
  (p: number): (self: Request) => Request
  (self: Request, p: number): Request
} = dual(2, (self: Request, p: number) => update(self, { topP: p }))

/**
 * Sets where the answer stops: a sequence, or a list of 1 to 4, none empty. The answer does not
 * include the sequence that stopped it.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("gpt-4o-mini").pipe(Request.stop(["\n\n", "END"]))
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const stop: {
  (sequences: string | ReadonlyArray<string>): (self: Request) => Request
  (self: Request, sequences: string | ReadonlyArray<string>): Request
} = dual(2, (self: Request, sequences: string | ReadonlyArray<string>) =>
  update(self, { stop: sequences }),
)

/**
 * Penalizes tokens that already appear in the answer, from -2 to 2: positive values make the
 * model move on to new topics.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("gpt-4o-mini").pipe(Request.presencePenalty(0.5))
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const presencePenalty: {
  (penalty: number): (self: Request) => Request
  (self: Request, penalty: number): Request
} = dual(2, (self: Request, penalty: number) => update(self, { presencePenalty: penalty }))

/**
 * Penalizes tokens by how often they already appear in the answer, from -2 to 2: positive values
 * make the model repeat itself less.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("gpt-4o-mini").pipe(Request.frequencyPenalty(0.5))
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const frequencyPenalty: {
  (penalty: number): (self: Request) => Request
  (self: Request, penalty: number): Request
} = dual(2, (self: Request, penalty: number) => update(self, { frequencyPenalty: penalty }))

/**
 * Whether the model may make several calls in one answer (`false`: one call at most). Sent only
 * when the request offers tools.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("gpt-4o-mini").pipe(Request.parallelToolCalls(false))
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const parallelToolCalls: {
  (parallel: boolean): (self: Request) => Request
  (self: Request, parallel: boolean): Request
} = dual(2, (self: Request, parallel: boolean) => update(self, { parallelToolCalls: parallel }))

/**
 * Adds fields of a server's own to the body, as they are: vLLM's `chat_template_kwargs`,
 * OpenRouter's `provider`, a reasoning effort newer than {@link ReasoningEffort}. Each call adds to
 * those already there; a field given again replaces it. A codec refuses a field it writes itself
 * for the request: set that one with its own function.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.make("Qwen/Qwen3-8B").pipe(
 *   Request.extra({ chat_template_kwargs: { enable_thinking: false } }),
 *   Request.extra({ top_k: 20 }),
 * )
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const extra: {
  (fields: Readonly<Record<string, unknown>>): (self: Request) => Request
  (self: Request, fields: Readonly<Record<string, unknown>>): Request
} = dual(2, (self: Request, fields: Readonly<Record<string, unknown>>) =>
  update(self, { extra: { ...self.extra, ...fields } }),
)

/**
 * Gives options to the codec of the given name (its `name`: `"openai-chat"`,
 * `"anthropic-messages"`), for what only that wire has. Each call merges over the options given
 * earlier under that name; a key given again replaces it. A codec reads only the options under its
 * own name and ignores the others, so one request can carry options for several wires. The values
 * must be JSON-like data (objects, arrays, strings, finite numbers, booleans, `null`): a request is
 * data that can be stored and sent on. A codec checks its own options when it encodes, and refuses
 * a key or a value it does not know. A codec usually offers a typed function built on this one
 * (`OpenAiCodec.options`).
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * const request = Request.make("gpt-4o-mini").pipe(
 *   Request.codecOptions("openai-chat", { serviceTier: "flex" }),
 *   Request.codecOptions("openai-chat", { user: "user-5f2a" }),
 * )
 * Request.codecOptionsOf(request, "openai-chat") // { serviceTier: "flex", user: "user-5f2a" }
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const codecOptions: {
  (name: string, options: Readonly<Record<string, unknown>>): (self: Request) => Request
  (self: Request, name: string, options: Readonly<Record<string, unknown>>): Request
} = dual(3, (self: Request, name: string, options: Readonly<Record<string, unknown>>) =>
  update(self, {
    codecOptions: { ...self.codecOptions, [name]: { ...codecOptionsOf(self, name), ...options } },
  }),
)

/**
 * The options the request gives the codec of the given name, or `undefined` when it gives none.
 * A codec reads its own with it; the value is as the caller gave it, to be checked by the codec.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * const request = Request.make("m").pipe(Request.codecOptions("openai-chat", { logprobs: true }))
 * Request.codecOptionsOf(request, "anthropic-messages") // undefined
 * ```
 *
 * @since 0.2.0
 * @category accessors
 */
export const codecOptionsOf = (
  self: Request,
  name: string,
): Readonly<Record<string, unknown>> | undefined => {
  const all = self.codecOptions
  // An own key only: a name such as "toString" is not an option of the prototype's.
  return all !== undefined && Object.hasOwn(all, name) ? all[name] : undefined
}

/**
 * The name of a field of a request that a codec must either handle or refuse: every field but
 * `model` and `messages`, which every codec sends, and `codecOptions`, which every codec reads
 * under its own name. See {@link fields} for the list, and {@link unclaimed} for what "sets"
 * means for each one.
 *
 * @since 0.2.0
 * @category models
 */
export type Field = Exclude<keyof Request, "model" | "messages" | "codecOptions" | "pipe">

/**
 * Whether the request sets each field: gives it a value that asks something of the wire. A field
 * at its default (`undefined`, no tools, `toolChoice` Auto, a Text response format,
 * `sendReasoning` off, no extra fields) sets nothing. Typed by {@link Field}: a field added to the
 * request does not compile until it is here, and so in {@link fields}.
 */
const setters: { readonly [F in Field]: (self: Request) => boolean } = {
  system: (self) => self.system !== undefined,
  tools: (self) => self.tools.length > 0,
  toolChoice: (self) => self.toolChoice._tag !== "Auto",
  maxTokens: (self) => self.maxTokens !== undefined,
  temperature: (self) => self.temperature !== undefined,
  responseFormat: (self) =>
    self.responseFormat !== undefined && self.responseFormat._tag !== "Text",
  reasoningEffort: (self) => self.reasoningEffort !== undefined,
  includeUsage: (self) => self.includeUsage !== undefined,
  sendReasoning: (self) => self.sendReasoning === true,
  contextTokens: (self) => self.contextTokens !== undefined,
  seed: (self) => self.seed !== undefined,
  topP: (self) => self.topP !== undefined,
  stop: (self) => self.stop !== undefined,
  presencePenalty: (self) => self.presencePenalty !== undefined,
  frequencyPenalty: (self) => self.frequencyPenalty !== undefined,
  parallelToolCalls: (self) => self.parallelToolCalls !== undefined,
  extra: (self) => self.extra !== undefined && Object.keys(self.extra).length > 0,
}

/**
 * Every {@link Field}, in the order of the request's fields: what a codec's `fields` is chosen
 * from. A field added to the request later is added here too, and so is refused by every codec
 * that has not claimed it, never dropped.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.fields.slice(0, 3) // ["system", "tools", "toolChoice"]
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const fields: ReadonlyArray<Field> = Object.keys(setters) as Array<Field>

/**
 * The Unsupported error for the first field (in the order of {@link fields}) that the request
 * sets and the codec named `codecName` did not claim, or `undefined` when it claimed every field
 * the request sets. A field is set when it asks something of the wire: `system`, the numbers,
 * `reasoningEffort`, `includeUsage`, `stop` and `parallelToolCalls` when not `undefined`; `tools`
 * when not empty; `toolChoice` when not Auto; `responseFormat` when not `undefined` nor Text;
 * `sendReasoning` when `true`; `extra` when it has a field. A codec calls it first in `encode`
 * with its own `fields`, so that a field it does not know is refused rather than dropped.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * const request = Request.make("m").pipe(Request.user("Hi"), Request.seed(7))
 * const error = Request.unclaimed(request, ["system", "maxTokens"], "example")
 * error?.message // "the request sets seed, which the example codec does not send"
 * ```
 *
 * @since 0.2.0
 * @category validation
 */
export const unclaimed = (
  self: Request,
  claimed: ReadonlySet<Field> | ReadonlyArray<Field>,
  codecName: string,
): SvirError.SvirError | undefined => {
  const handled: ReadonlySet<Field> = "has" in claimed ? claimed : new Set(claimed)
  for (const field of fields) {
    if (!handled.has(field) && setters[field](self)) {
      return SvirError.make(
        "Unsupported",
        `the request sets ${field}, which the ${codecName} codec does not send`,
      )
    }
  }
  return undefined
}

/**
 * Why the request cannot be sent, or `undefined` when it can: a tool name servers refuse,
 * `Required` with no tools offered, a named tool that is not offered, an empty model name, a
 * token bound, temperature or sampling option out of range (see each option). A codec checks
 * its own options ({@link codecOptions}) itself.
 *
 * @since 0.2.0
 * @category validation
 */
export const problem = (self: Request): string | undefined => {
  if (self.model.trim() === "") return "the request names no model"
  for (const tool of self.tools) {
    const nameProblem = Tool.nameProblem(tool.name)
    if (nameProblem !== undefined) return nameProblem
  }
  const choice = self.toolChoice
  if (choice._tag === "Required" && self.tools.length === 0) {
    return "tool_choice Required asks for a tool call, but the request offers no tools"
  }
  if (choice._tag === "Tool" && !self.tools.some((tool) => tool.name === choice.name)) {
    return `tool_choice names the tool ${choice.name}, which the request does not offer`
  }
  if (self.maxTokens !== undefined && !(Number.isInteger(self.maxTokens) && self.maxTokens > 0)) {
    return `max tokens must be a positive whole number, not ${self.maxTokens}`
  }
  if (self.temperature !== undefined && !(self.temperature >= 0 && self.temperature <= 2)) {
    return `temperature must be between 0 and 2, not ${self.temperature}`
  }
  if (
    self.contextTokens !== undefined &&
    !(Number.isInteger(self.contextTokens) && self.contextTokens > 0)
  ) {
    return `context tokens must be a positive whole number, not ${self.contextTokens}`
  }
  return samplingProblem(self)
}

/** The bounds of the sampling options, as OpenAI documents them. */
const samplingProblem = (self: Request): string | undefined => {
  if (self.seed !== undefined && !Number.isSafeInteger(self.seed)) {
    return `seed must be a whole number, not ${self.seed}`
  }
  if (self.topP !== undefined && !(self.topP >= 0 && self.topP <= 1)) {
    return `top p must be between 0 and 1, not ${self.topP}`
  }
  const stop = self.stop
  if (stop !== undefined) {
    const sequences = typeof stop === "string" ? [stop] : stop
    if (sequences.length === 0 || sequences.length > 4) {
      return `stop takes 1 to 4 sequences, not ${sequences.length}`
    }
    if (sequences.some((sequence) => typeof sequence !== "string" || sequence === "")) {
      return "a stop sequence must be a text that is not empty"
    }
  }
  const penalty = penaltyProblem("presence penalty", self.presencePenalty)
  if (penalty !== undefined) return penalty
  const frequency = penaltyProblem("frequency penalty", self.frequencyPenalty)
  if (frequency !== undefined) return frequency
  return undefined
}

const penaltyProblem = (name: string, penalty: number | undefined): string | undefined =>
  penalty === undefined || (penalty >= -2 && penalty <= 2)
    ? undefined
    : `${name} must be between -2 and 2, not ${penalty}`

/**
 * Succeeds with the request when it can be sent, or fails with an Unsupported error that says
 * why (see {@link problem}). Every codec runs it before anything is sent.
 *
 * @since 0.2.0
 * @category validation
 */
export const validate = (self: Request): Effect.Effect<Request, SvirError.SvirError> => {
  const why = problem(self)
  return why === undefined ? Effect.succeed(self) : Effect.fail(SvirError.make("Unsupported", why))
}

/**
 * Like {@link validate}, and also fails when the request offers no tools: for single-shot tool
 * use, where an answer without tools to call is a mistake.
 *
 * @example
 * ```ts
 * import { Request } from "@svir/core"
 *
 * Request.requireTools(Request.make("gpt-4o-mini").pipe(Request.user("Hi")))
 * // fails: Unsupported, "the request offers no tools"
 * ```
 *
 * @since 0.2.0
 * @category validation
 */
export const requireTools = (self: Request): Effect.Effect<Request, SvirError.SvirError> =>
  self.tools.length === 0
    ? Effect.fail(SvirError.make("Unsupported", "the request offers no tools"))
    : validate(self)
