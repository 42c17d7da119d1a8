/**
 * A runner of bench/throughput.ts, in a process of its own: the durable loop of the bench on the
 * cluster engine at the database `argv[2]`, under the address `127.0.0.1:<argv[3]>`. Prints
 * `ready` once it is registered, and runs until SIGTERM, when it prints what it did: the model
 * calls it answered and the CPU time it spent since it was ready, as JSON.
 */
import type { Request } from "@svir/core"
import { Effect, Layer, References } from "effect"
import { engine } from "./engine.js"
import { model, shortAgent, shortCalls, tools } from "./model.js"

const [url, port] = process.argv.slice(2)

let modelCalls = 0
const answer = model(shortCalls)
const send = (request: Request.Request) => {
  modelCalls++
  return answer(request)
}

let ready = process.cpuUsage()

process.once("SIGTERM", () => {
  const cpu = process.cpuUsage(ready)
  console.log(JSON.stringify({ modelCalls, cpuMillis: (cpu.user + cpu.system) / 1000 }))
  process.exit(0)
})

const runner = Layer.provideMerge(
  shortAgent.layer({ send, toolbox: tools }),
  engine(url!, Number(port)),
)

await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      yield* Layer.build(runner)
      ready = process.cpuUsage()
      console.log("ready")
      return yield* Effect.never
    }),
  ).pipe(Effect.provideService(References.MinimumLogLevel, "Error")),
)
