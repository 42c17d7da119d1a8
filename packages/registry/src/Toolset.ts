/**
 * Toolsets: several tools that share one state object (polaris's `#[toolset]`).
 *
 * @since 0.2.0
 * @module
 */
import { Tool, type ToolCall } from "@svir/core"
import type * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Pipeable from "effect/Pipeable"
import type * as Arguments from "./Arguments.js"
import * as Entry from "./internal/entry.js"
import { fromEntries } from "./internal/registry.js"
import type * as Tools from "./Tools.js"

/**
 * A handler of a toolset: the shared state comes first, then the decoded arguments, the call and
 * the {@link Tools.HandlerOptions} (the signal that tells a Promise handler its call was stopped,
 * and the call's idempotency key).
 *
 * @since 0.2.0
 * @category models
 */
export type Method<State, A, E = never, R = never> = (
  self: State,
  args: A,
  call: ToolCall.ToolCall,
  options: Tools.HandlerOptions,
) => Tools.Output | PromiseLike<Tools.Output> | Effect.Effect<Tools.Output, E, R>

/**
 * Tools written against a state object of type `State`. {@link tools} gives them one state and
 * makes a registry; every handler sees that same object.
 *
 * @since 0.2.0
 * @category models
 */
export interface Toolset<in State, out R = never> extends Pipeable.Pipeable {
  readonly build: ReadonlyArray<(self: State) => Entry.Entry<R>>
}

const Proto = {
  pipe() {
    // biome-ignore lint/complexity/noArguments: the pipe protocol passes its functions this way
    return Pipeable.pipeArguments(this, arguments)
  },
}

const fromBuild = <State, R>(build: ReadonlyArray<(self: State) => Entry.Entry<R>>) =>
  Object.assign(Object.create(Proto), { build }) as Toolset<State, R>

/**
 * A toolset with no tools yet, for a state of type `State`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Toolset } from "@svir/registry"
 *
 * interface Counter {
 *   count: number
 * }
 *
 * const CounterTools = Toolset.make<Counter>().pipe(
 *   Toolset.add("increment", "Add one to the counter.", Schema.Struct({}), (self) => ++self.count),
 *   Toolset.add("read", "Read the counter.", Schema.Struct({}), (self) => self.count),
 * )
 * const tools = Toolset.tools(CounterTools, { count: 0 })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = <State>(): Toolset<State> => fromBuild<State, never>([])

/**
 * Adds a tool to a toolset, the same way {@link Tools.add} adds one to a registry; its handler
 * receives the shared state first.
 *
 * @since 0.2.0
 * @category combinators
 */
export const add: {
  <State, S extends Arguments.ArgumentsSchema, E = never, R2 = never>(
    name: string,
    description: string,
    schema: S,
    method: Method<State, Arguments.Type<S>, E, R2>,
  ): <R>(self: Toolset<State, R>) => Toolset<State, R | R2 | Arguments.Services<S>>
  <State, R, S extends Arguments.ArgumentsSchema, E = never, R2 = never>(
    self: Toolset<State, R>,
    name: string,
    description: string,
    schema: S,
    method: Method<State, Arguments.Type<S>, E, R2>,
  ): Toolset<State, R | R2 | Arguments.Services<S>>
} = dual(
  5,
  <State, R, S extends Arguments.ArgumentsSchema, E, R2>(
    self: Toolset<State, R>,
    name: string,
    description: string,
    schema: S,
    method: Method<State, Arguments.Type<S>, E, R2>,
  ): Toolset<State, R | R2 | Arguments.Services<S>> => {
    const decoder = Entry.decoderOf(schema)
    const tool = Tool.make(name, description, decoder.jsonSchema)
    return fromBuild<State, R | R2 | Arguments.Services<S>>([
      ...self.build,
      (state: State) =>
        Entry.make(tool, decoder, (args, call, options) => method(state, args, call, options)),
    ])
  },
)

/**
 * The registry of a toolset's tools, all sharing `state`. Merge it into another registry with
 * {@link Tools.merge}, which reports a name both offer.
 *
 * @since 0.2.0
 * @category constructors
 */
export const tools = <State, R>(self: Toolset<State, R>, state: State): Tools.Tools<R> => {
  const entries = new Map<string, Entry.Entry<R>>()
  for (const build of self.build) {
    const entry = build(state)
    entries.set(entry.tool.name, entry)
  }
  return fromEntries(entries)
}
