import { execFileSync } from "node:child_process"
import { pbkdf2 } from "node:crypto"
import { closeSync, constants, openSync } from "node:fs"
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Message, Request, type SvirError } from "@svir/core"
import { Effect } from "effect"
import { readFromDisk, resolveAttachments } from "../src/internal/attachments.js"

// Paths that are not regular files. Opening a FIFO for reading waits for a writer, in a thread of
// libuv's pool (four by default): a few such opens and every `fs` call, DNS lookup and async
// zlib or crypto call of the process waits behind them, for good.
let folder = ""
const at = (name: string) => join(folder, name)

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "svir-attachments-files-"))
  await writeFile(at("notes.txt"), "hello")
  await mkdir(at("folder"))
  execFileSync("mkfifo", [at("pipe")])
  await symlink(at("notes.txt"), at("link-to-notes.txt"))
  await symlink(at("pipe"), at("link-to-pipe"))
})

afterAll(async () => {
  // Should a read wait on the FIFO after all, a writer opening it lets the read go on.
  try {
    closeSync(openSync(at("pipe"), constants.O_WRONLY | constants.O_NONBLOCK))
  } catch {
    // ENXIO: nobody is reading it, as it should be.
  }
  await rm(folder, { recursive: true, force: true })
})

const resolveOne = (part: Message.Part) =>
  resolveAttachments(Request.make("m").pipe(Request.user([part])), readFromDisk)

const refusal = (part: Message.FileAtPart) => Effect.flip(resolveOne(part))

const assertRefused = (error: SvirError.SvirError, path: string, what: string) => {
  assert.deepInclude(error.reason, { _tag: "Attachment", attachment: path })
  assert.include(error.message, path)
  assert.include(error.message, `is ${what}, not a regular file`)
}

const pbkdf2Done = () =>
  new Promise<number>((resolve, reject) =>
    pbkdf2("secret", "salt", 1, 16, "sha256", (error, key) =>
      error === null ? resolve(key.length) : reject(error),
    ),
  )

describe("readFromDisk: files that are not files", () => {
  it.effect("refuses a FIFO without opening it, so the thread pool stays free", () =>
    Effect.gen(function* () {
      const errors = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) =>
          refusal(
            i % 2 === 0
              ? Message.textFileAt(at("pipe"))
              : Message.imageAt(at("pipe"), { mediaType: "image/png" }),
          ),
        ),
        { concurrency: "unbounded" },
      )
      for (const error of errors) assertRefused(error, at("pipe"), "a FIFO")
      // Both wait for a thread of the pool: with four opens stuck on the FIFO they never ran.
      const text = yield* Effect.promise(() => readFile(at("notes.txt"), "utf8"))
      assert.strictEqual(text, "hello")
      assert.strictEqual(yield* Effect.promise(pbkdf2Done), 16)
    }),
  )

  it.effect("refuses a device and a folder", () =>
    Effect.gen(function* () {
      assertRefused(
        yield* refusal(Message.textFileAt("/dev/zero")),
        "/dev/zero",
        "a character device",
      )
      assertRefused(yield* refusal(Message.textFileAt(at("folder"))), at("folder"), "a folder")
      const image = yield* refusal(Message.imageAt(at("folder"), { mediaType: "image/png" }))
      assertRefused(image, at("folder"), "a folder")
    }),
  )

  it.effect("follows a symbolic link to a regular file, and refuses one to a FIFO", () =>
    Effect.gen(function* () {
      const resolved = yield* resolveOne(Message.textFileAt(at("link-to-notes.txt")))
      const message = resolved.messages[0]
      assert.deepStrictEqual(message?._tag === "User" ? message.parts : [], [
        Message.file("link-to-notes.txt", "text/plain", "hello"),
      ])
      assertRefused(
        yield* refusal(Message.textFileAt(at("link-to-pipe"))),
        at("link-to-pipe"),
        "a FIFO",
      )
    }),
  )
})
