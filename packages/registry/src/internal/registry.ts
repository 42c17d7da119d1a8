import { GenAi, type Tool, type Toolbox, type ToolCall, ToolResult } from "@svir/core"
import * as Effect from "effect/Effect"
import * as Pipeable from "effect/Pipeable"
import { type Entry, type Reply, toEffect } from "./entry.js"

const TypeId = "~@svir/registry/Tools" as const

/** What `Tools.Tools` is; documented there, declared here so that this module need not import it. */
export interface Registry<R> extends Toolbox.Toolbox<R>, Pipeable.Pipeable {
  readonly [TypeId]: typeof TypeId
  /** The tools by name, in the order their names were first added. */
  readonly entries: ReadonlyMap<string, Entry<R>>
}

/** Where a registry keeps its synchronous-when-possible answer function. */
const AnswerId: unique symbol = Symbol.for("@svir/registry/Tools/answer")

/** Answers a call at once when its handler can, or gives an Effect. May throw on a defect. */
export const answerOf = <R>(tools: Registry<R>, call: ToolCall.ToolCall): Reply<R> =>
  (tools as unknown as { readonly [AnswerId]: (call: ToolCall.ToolCall) => Reply<R> })[AnswerId](
    call,
  )

const Proto = {
  [TypeId]: TypeId,
  pipe() {
    // biome-ignore lint/complexity/noArguments: the pipe protocol passes its functions this way
    return Pipeable.pipeArguments(this, arguments)
  },
}

export const isTools = (u: unknown): u is Registry<unknown> =>
  typeof u === "object" && u !== null && TypeId in u

const visibleTools = <R>(
  entries: ReadonlyArray<Entry<R>>,
): Effect.Effect<ReadonlyArray<Tool.Tool>, never, R> =>
  Effect.map(
    Effect.forEach(entries, (entry) =>
      entry.visible === undefined ? Effect.succeed(true) : entry.visible,
    ),
    (shown) => entries.filter((_, i) => shown[i]).map((entry) => entry.tool),
  )

/** A registry over its entries, in the order they were first added. */
export const fromEntries = <R>(entries: ReadonlyMap<string, Entry<R>>): Registry<R> => {
  const list = [...entries.values()]
  const guarded = list.some((entry) => entry.visible !== undefined)
  const tools = guarded ? visibleTools(list) : Effect.succeed(list.map((entry) => entry.tool))
  const unknown = (call: ToolCall.ToolCall) =>
    Effect.map(tools, (offered) =>
      ToolResult.unknownTool(
        call.id,
        call.name,
        offered.map((tool) => tool.name),
      ),
    )
  const names = guarded ? undefined : list.map((entry) => entry.tool.name)
  const answer = (call: ToolCall.ToolCall): Reply<R> => {
    const entry = entries.get(call.name)
    if (entry === undefined) {
      return names === undefined ? unknown(call) : ToolResult.unknownTool(call.id, call.name, names)
    }
    if (entry.visible === undefined) return entry.answer(call)
    return Effect.flatMap(entry.visible, (shown) =>
      shown ? toEffect(entry.answer(call)) : unknown(call),
    )
  }
  // `Effect.suspend` turns a throw (a schema library's validator can throw) into a defect. Each
  // call is an `execute_tool` span when a tracer exports (R10).
  const call = (call: ToolCall.ToolCall) =>
    GenAi.executeTool(
      call,
      Effect.suspend(() => toEffect(answer(call))),
    )
  return Object.assign(Object.create(Proto), { entries, tools, call, [AnswerId]: answer })
}
