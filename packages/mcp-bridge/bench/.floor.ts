import * as Effect from "effect/Effect"

const items = Array.from({ length: 100 }, (_, i) => i)
const tick = () => new Promise<number>((r) => setImmediate(() => r(1)))
const P = () => Promise.all(items.map(() => tick()))
const E = () =>
  Effect.runPromise(Effect.forEach(items, () => Effect.promise(tick), { concurrency: "unbounded" }))
const Ecb = () =>
  Effect.runPromise(
    Effect.forEach(
      items,
      () =>
        Effect.callback<number>((resume) => {
          tick().then((v) => resume(Effect.succeed(v)))
        }),
      { concurrency: "unbounded" },
    ),
  )
const EP = () =>
  Promise.all(
    items.map(() =>
      Effect.runPromise(
        Effect.callback<number>((resume) => {
          tick().then((v) => resume(Effect.succeed(v)))
        }),
      ),
    ),
  )
const v: Record<string, () => Promise<unknown>> = { P, E, Ecb, EP }
const sums: Record<string, number> = {}
for (let r = 0; r < 3000; r++)
  for (const [k, f] of Object.entries(v)) {
    const c = process.cpuUsage()
    await f()
    const u = process.cpuUsage(c)
    if (r >= 100) sums[k] = (sums[k] ?? 0) + u.user + u.system
  }
for (const [k, s] of Object.entries(sums))
  console.log(k.padEnd(6), (s / 2900 / 100).toFixed(2), "µs/item")
