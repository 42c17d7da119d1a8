import type { Request, SvirError, Toolbox, ToolCall } from "@svir/core"
import type { Loop } from "@svir/loop"
import { DurableLoop } from "@svir/workflow"
import { Context, Data, type Effect, type Layer, type Option } from "effect"
import type { WorkflowEngine } from "effect/workflow/WorkflowEngine"
import { describe, expect, test } from "tstyche"

class Offline extends Data.TaggedError("Offline")<{ readonly url: string }> {}
class Sender extends Context.Service<Sender, { readonly url: string }>()("Sender") {}
class Tooling extends Context.Service<Tooling, { readonly root: string }>()("Tooling") {}
class Pager extends Context.Service<Pager, { readonly page: (text: string) => void }>()("Pager") {}

declare const send: Loop.Send<Offline, Sender>
declare const toolbox: Toolbox.Toolbox<Tooling>
declare const request: Request.Request
declare const call: ToolCall.ToolCall
declare const ask: (asked: DurableLoop.ApprovalRequest) => Effect.Effect<void, never, Pager>

const agent = DurableLoop.make("support-agent", { maxSteps: 8 })

describe("DurableLoop", () => {
  test("keeps the workflow's name as its type", () => {
    expect(agent.name).type.toBe<"support-agent">()
  })

  test("registers on a runner that has the engine and the services of the model and the tools", () => {
    const layer = agent.layer({ send, toolbox, onApproval: ask })
    expect(layer).type.toBe<
      Layer.Layer<never, SvirError.SvirError, WorkflowEngine | Sender | Tooling | Pager>
    >()
  })

  test("starts a run with the engine alone, and gives its execution id", () => {
    expect(agent.start("ticket-1", request)).type.toBe<
      Effect.Effect<string, never, WorkflowEngine>
    >()
  })

  test("gives the loop's result, or the model's failure, whatever the transport's error type", () => {
    expect(agent.run("ticket-1", request)).type.toBe<
      Effect.Effect<Loop.Result, DurableLoop.ModelFailure, WorkflowEngine>
    >()
    expect(agent.result("id")).type.toBe<
      Effect.Effect<Option.Option<Loop.Result>, DurableLoop.ModelFailure, WorkflowEngine>
    >()
  })

  test("approves with a decision of the loop's Approval, and may refuse the token", () => {
    expect(DurableLoop.approve("token", call, { _tag: "Allow" })).type.toBe<
      Effect.Effect<void, DurableLoop.ApprovalRefused, WorkflowEngine>
    >()
    expect(DurableLoop.approve).type.not.toBeCallableWith("token", call, { _tag: "Maybe" })
  })
})
