import type { ToolCall, ToolResult } from "@svir/core"
import { Arguments, Tools } from "@svir/registry"
import { Context, Effect, Schema } from "effect"
import { describe, expect, test } from "tstyche"
import * as z from "zod"

const Search = Schema.Struct({
  query: Schema.String,
  limit: Schema.optionalKey(Schema.Int),
})

class Workspace extends Context.Service<Workspace, { readonly root: string }>()("Workspace") {}

describe("Tools.add", () => {
  test("the handler's arguments are the Effect Schema's Type", () => {
    Tools.add("search", "Search.", Search, (args, call, { signal, idempotencyKey }) => {
      expect(args).type.toBe<{ readonly query: string; readonly limit?: number }>()
      expect(args).type.toBe<typeof Search.Type>()
      expect(call).type.toBe<ToolCall.ToolCall>()
      expect(signal).type.toBe<AbortSignal>()
      expect(idempotencyKey).type.toBe<string | undefined>()
      return args.query
    })
  })

  test("a field with a default is always there for the handler", () => {
    const Paged = Schema.Struct({ page: Schema.Int.pipe(Arguments.withDefault(1)) })
    Tools.add("paged", "A page.", Paged, (args) => {
      expect(args).type.toBe<{ readonly page: number }>()
      return args.page
    })
  })

  test("the handler's arguments are a zod schema's output", () => {
    const Weather = z.object({
      city: z.string(),
      unit: z.enum(["celsius", "fahrenheit"]).default("celsius"),
    })
    Tools.add("weather", "The weather.", Weather, (args) => {
      expect(args).type.toBe<{ city: string; unit: "celsius" | "fahrenheit" }>()
      return args.city
    })
  })

  test("a handler that reads a field the schema does not have does not compile", () => {
    expect(Tools.add("search", "Search.", Search, (args) => args.qurey)).type.toRaiseError(
      "Property 'qurey' does not exist",
    )
  })

  test("a handler that gives something other than an Output does not compile", () => {
    expect(Tools.add("search", "Search.", Search, () => Symbol("result"))).type.toRaiseError(
      "is not assignable to type 'Output | PromiseLike<Output>",
    )
    expect(Tools.add("search", "Search.", Search, () => 1n)).type.toRaiseError(
      "is not assignable to type 'Output | PromiseLike<Output>",
    )
  })

  test("a handler that takes arguments of another type does not compile", () => {
    expect(
      Tools.add("search", "Search.", Search, (args: { readonly query: number }) => args.query),
    ).type.toRaiseError("Types of property 'query' are incompatible")
  })

  test("arguments that are not an object do not compile, naming NotAnObject", () => {
    expect(Tools.add("echo", "Echo.", Schema.String, (text) => text)).type.toRaiseError(
      "Tools.add: the arguments must be an object",
    )
    expect(Tools.add("sum", "Sum.", z.array(z.number()), () => 0)).type.toRaiseError(
      "Tools.add: the arguments must be an object",
    )
  })

  test("the services a handler needs are the registry's; its error is not", () => {
    const tools = Tools.empty.pipe(
      Tools.add("root", "The workspace root.", Schema.Struct({}), () =>
        Effect.map(Effect.service(Workspace), (workspace) => workspace.root),
      ),
      Tools.add("fails", "Always fails.", Schema.Struct({}), () => Effect.fail("no")),
    )
    expect(tools).type.toBe<Tools.Tools<Workspace>>()
    expect(Tools.callAll(tools, [])).type.toBe<
      Effect.Effect<ReadonlyArray<ToolResult.ToolResult>, never, Workspace>
    >()
  })

  test("a registry whose handlers need services is not a registry that needs none", () => {
    const tools = Tools.empty.pipe(
      Tools.add("root", "The workspace root.", Schema.Struct({}), () =>
        Effect.map(Effect.service(Workspace), (workspace) => workspace.root),
      ),
    )
    expect(tools).type.not.toBeAssignableTo<Tools.Tools>()
  })
})
