import { Writable } from "node:stream"
import { setImmediate as nextTurn } from "node:timers/promises"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { batchSize, makeTurnWriter } from "../src/internal/turnWriter.js"

/** A stream that records each write it is asked to make, as the texts it carries. */
const recording = (highWaterMark = 16_384) => {
  const writes: Array<ReadonlyArray<string>> = []
  const stream = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      writes.push([chunk])
      done()
    },
    writev(chunks, done) {
      writes.push(chunks.map(({ chunk }) => chunk as string))
      done()
    },
  })
  return { stream, writes }
}

const texts = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `{"id":${from + i}}\n`)

describe("makeTurnWriter", () => {
  it("writes what one turn sends in writes of at most batchSize texts, in order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 * batchSize }), async (count) => {
        const { stream, writes } = recording()
        const write = makeTurnWriter(stream)
        const sent = texts(count)
        for (const text of sent) write(text)
        await nextTurn()
        assert.deepStrictEqual(writes.flat(), sent)
        assert.strictEqual(writes.length, Math.ceil(count / batchSize))
        for (const batch of writes.slice(0, -1)) assert.strictEqual(batch.length, batchSize)
      }),
      { numRuns: 50 },
    )
  })

  it("holds nothing past the turn: a text sent alone goes out in the same turn", async () => {
    const { stream, writes } = recording()
    const write = makeTurnWriter(stream)
    write(texts(1)[0]!)
    await new Promise<void>((resolve) => process.nextTick(resolve))
    assert.deepStrictEqual(writes, [texts(1)])
    write(texts(1, 1)[0]!)
    write(texts(1, 2)[0]!)
    await nextTurn()
    assert.deepStrictEqual(writes, [texts(1), texts(2, 1)])
  })

  it("says when to wait for drain, and drains once the turn's writes are out", async () => {
    const { stream, writes } = recording(64)
    const write = makeTurnWriter(stream)
    const answers = texts(10).map(write)
    assert.strictEqual(answers[0], true)
    assert.strictEqual(answers.at(-1), false)
    await new Promise((resolve) => stream.once("drain", resolve))
    assert.deepStrictEqual(writes.flat(), texts(10))
  })

  it("lets the stream end with what the turn held", async () => {
    const { stream, writes } = recording()
    const write = makeTurnWriter(stream)
    for (const text of texts(3)) write(text)
    stream.end()
    await new Promise((resolve) => stream.once("finish", resolve))
    assert.deepStrictEqual(writes.flat(), texts(3))
  })
})
