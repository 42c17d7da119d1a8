import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { Notation } from "@svir/conformance"
import { describeCases } from "@svir/conformance/vitest"
import { Message, Request, SvirError, Tool } from "@svir/core"
import { OpenAiCodec } from "@svir/openai-codec"
import { Effect } from "effect"
import { defaultMaxBytes, readFromDisk, resolveAttachments } from "../src/internal/attachments.js"

let folder = ""
const at = (name: string) => join(folder, name)

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "svir-attachments-"))
  await writeFile(at("notes.md"), 'say "hi"\n')
  await writeFile(at("pixel.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47]))
  await writeFile(at("latin1.txt"), new Uint8Array([0x61, 0xff, 0x62]))
  await writeFile(at("four.txt"), "abcd")
  await mkdir(at("folder"))
})

afterAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

const userParts = (request: Request.Request, index = 0) => {
  const message = request.messages[index]
  assert.strictEqual(message?._tag, "User")
  return message?._tag === "User" ? message.parts : []
}

const attachmentError = (part: Message.Part) =>
  resolveAttachments(Request.make("m").pipe(Request.user([part])), readFromDisk).pipe(Effect.flip)

describe("resolveAttachments", () => {
  it.effect("reads text files and images into parts, keeping everything else", () =>
    Effect.gen(function* () {
      const request = Request.make("m").pipe(
        Request.system("Be brief."),
        Request.tool(Tool.make("now", "The time.")),
        Request.maxTokens(64),
        Request.user([
          Message.textFileAt(at("notes.md")),
          Message.text("And this?"),
          Message.imageAt(at("pixel.png")),
        ]),
      )
      const resolved = yield* resolveAttachments(request, readFromDisk)
      assert.deepStrictEqual(userParts(resolved), [
        Message.file("notes.md", "text/plain", 'say "hi"\n'),
        Message.text("And this?"),
        Message.image(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), "image/png"),
      ])
      assert.strictEqual(resolved.system, "Be brief.")
      assert.strictEqual(resolved.maxTokens, 64)
      assert.strictEqual(resolved.tools.length, 1)
      // Still a request: it pipes, and the codec encodes it.
      const body = yield* OpenAiCodec.encode(resolved.pipe(Request.temperature(0)), {
        stream: false,
      })
      assert.deepStrictEqual(body.messages[1], {
        role: "user",
        content: [
          { type: "text", text: '<file name="notes.md">\nsay "hi"\n\n</file>\n\nAnd this?' },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw==" } },
        ],
      })
    }),
  )

  it.effect("gives back a request with no file by path as it is", () =>
    Effect.gen(function* () {
      const request = Request.make("m").pipe(Request.user("Hi"))
      assert.strictEqual(yield* resolveAttachments(request, readFromDisk), request)
    }),
  )

  it.effect("names the file, the media type and the limit the caller gives", () =>
    Effect.gen(function* () {
      const request = Request.make("m").pipe(
        Request.user([
          Message.textFileAt(at("notes.md"), { name: "spec.md", mediaType: "text/markdown" }),
          Message.imageAt(at("four.txt"), { mediaType: "image/webp", maxBytes: 4 }),
        ]),
      )
      assert.deepStrictEqual(userParts(yield* resolveAttachments(request, readFromDisk)), [
        Message.file("spec.md", "text/markdown", 'say "hi"\n'),
        Message.image(new TextEncoder().encode("abcd"), "image/webp"),
      ])
    }),
  )

  it.effect("takes an image's media type from its extension, in any case", () =>
    Effect.gen(function* () {
      const bytes = new Uint8Array([1, 2, 3])
      const read = () => Promise.resolve(bytes)
      for (const [name, mediaType] of [
        ["a.png", "image/png"],
        ["b.JPG", "image/jpeg"],
        ["c.jpeg", "image/jpeg"],
        ["d.gif", "image/gif"],
        ["dir.v2/e.webp", "image/webp"],
      ] as const) {
        const request = Request.make("m").pipe(Request.user([Message.imageAt(name)]))
        const resolved = yield* resolveAttachments(request, read)
        assert.deepStrictEqual(userParts(resolved), [Message.image(bytes, mediaType)], name)
      }
      for (const name of ["f.bmp", "noextension", ".png", "dir.png/g"]) {
        const request = Request.make("m").pipe(Request.user([Message.imageAt(name)]))
        const error = yield* Effect.flip(resolveAttachments(request, read))
        assert.deepInclude(error.reason, { _tag: "Attachment", attachment: name }, name)
        assert.include(error.message, "media type")
      }
    }),
  )

  it.effect("a text file may have any extension, or none", () =>
    Effect.gen(function* () {
      const read = () => Promise.resolve(new TextEncoder().encode("x"))
      const request = Request.make("m").pipe(
        Request.user([
          Message.textFileAt("Makefile"),
          Message.textFileAt("/etc/app.conf.d/x.weird"),
        ]),
      )
      assert.deepStrictEqual(userParts(yield* resolveAttachments(request, read)), [
        Message.file("Makefile", "text/plain", "x"),
        Message.file("x.weird", "text/plain", "x"),
      ])
    }),
  )

  it.effect("refuses a path that cannot be read, naming it", () =>
    Effect.gen(function* () {
      for (const path of [at("missing.txt"), at("folder")]) {
        const error = yield* attachmentError(Message.textFileAt(path))
        assert.deepInclude(error.reason, { _tag: "Attachment", attachment: path })
        assert.include(error.message, path)
        assert.isFalse(error.isRetryable)
      }
      const missing = yield* attachmentError(Message.imageAt(at("missing.png")))
      assert.include(missing.message, "(ENOENT)")
    }),
  )

  it.effect("refuses a file larger than its limit, at the limit or the default", () =>
    Effect.gen(function* () {
      const tooLarge = yield* attachmentError(Message.textFileAt(at("four.txt"), { maxBytes: 3 }))
      assert.deepInclude(tooLarge.reason, { _tag: "Attachment", attachment: at("four.txt") })
      assert.include(tooLarge.message, "larger than its limit of 3 bytes")
      const fits = Message.textFileAt(at("four.txt"), { maxBytes: 4 })
      const resolved = yield* resolveAttachments(
        Request.make("m").pipe(Request.user([fits])),
        readFromDisk,
      )
      assert.deepStrictEqual(userParts(resolved), [Message.file("four.txt", "text/plain", "abcd")])
      const sizes: Array<number> = []
      yield* resolveAttachments(
        Request.make("m").pipe(Request.user([Message.textFileAt("x")])),
        (_, maxBytes) => {
          sizes.push(maxBytes)
          return Promise.resolve(new Uint8Array(0))
        },
      )
      assert.deepStrictEqual(sizes, [defaultMaxBytes])
      const odd = yield* attachmentError(Message.textFileAt(at("four.txt"), { maxBytes: -1 }))
      assert.strictEqual(odd.reason._tag, "Attachment")
    }),
  )

  it.effect("reads no more than one byte past the limit", () =>
    Effect.gen(function* () {
      yield* Effect.promise(() => writeFile(at("large.bin"), new Uint8Array(1 << 20)))
      const head = yield* Effect.promise(() => readFromDisk(at("large.bin"), 10))
      assert.strictEqual(head.length, 11)
      const whole = yield* Effect.promise(() => readFromDisk(at("large.bin"), 1 << 20))
      assert.strictEqual(whole.length, 1 << 20)
      assert.strictEqual((yield* Effect.promise(() => readFromDisk(at("four.txt"), 0))).length, 1)
    }),
  )

  it.effect("refuses a text file that is not UTF-8, without its content in the message", () =>
    Effect.gen(function* () {
      const error = yield* attachmentError(Message.textFileAt(at("latin1.txt")))
      assert.deepInclude(error.reason, { _tag: "Attachment", attachment: at("latin1.txt") })
      assert.include(error.message, "not UTF-8")
      assert.notInclude(error.message, "a\uFFFDb")
    }),
  )

  it.effect("checks a declared escaped length against the text as read", () =>
    Effect.gen(function* () {
      // 'say "hi"\n' escapes to `say \"hi\"\n`: 12 bytes.
      assert.strictEqual(Message.escapedLength('say "hi"\n'), 12)
      const right = Message.textFileAt(at("notes.md"), { escapedLength: 12 })
      const resolved = yield* resolveAttachments(
        Request.make("m").pipe(Request.user([right])),
        readFromDisk,
      )
      assert.strictEqual(userParts(resolved).length, 1)
      const error = yield* attachmentError(Message.textFileAt(at("notes.md"), { escapedLength: 9 }))
      assert.deepInclude(error.reason, { _tag: "Attachment", attachment: at("notes.md") })
      assert.include(error.message, "12 bytes once escaped")
      // The file's path is named; its text never is. The path comes from mkdtemp and may hold any letters.
      assert.notInclude(error.message.replaceAll(at("notes.md"), ""), "hi")
    }),
  )

  it.effect("keeps an Attachment error the reader gives, and wraps any other", () =>
    Effect.gen(function* () {
      const own = SvirError.make("Attachment", "no file system here", { attachment: "a.txt" })
      const request = Request.make("m").pipe(Request.user([Message.textFileAt("a.txt")]))
      assert.strictEqual(
        yield* Effect.flip(resolveAttachments(request, () => Promise.reject(own))),
        own,
      )
      const wrapped = yield* Effect.flip(
        resolveAttachments(request, () => Promise.reject(new Error("EACCES"))),
      )
      assert.deepInclude(wrapped.reason, { _tag: "Attachment", attachment: "a.txt" })
    }),
  )

  it.effect("reads each file once, so a change after it reaches nothing sent (D44)", () =>
    Effect.gen(function* () {
      yield* Effect.promise(() => writeFile(at("changing.txt"), "abc"))
      const request = Request.make("m").pipe(Request.user([Message.textFileAt(at("changing.txt"))]))
      const resolved = yield* resolveAttachments(request, readFromDisk)
      yield* Effect.promise(() => writeFile(at("changing.txt"), "abcde"))
      const body = yield* OpenAiCodec.encode(resolved, { stream: true })
      assert.strictEqual(body.messages[0]!.content, '<file name="changing.txt">\nabc\n</file>')
    }),
  )
})

// The Rust svir crate's encoder cases, with every attachment a file on disk, resolved and encoded
// as the client does: read once, whole, then encoded. A `declared_size` has nothing to bind to
// here (openai-codec D44): the file holds the case's content when it is read.
let written = 0
const writeAttachment = (key: string, attachment: Notation.Attachment) =>
  Effect.promise(async () => {
    const path = at(`case-${++written}-${key}`)
    const bytes =
      attachment.text !== undefined
        ? new TextEncoder().encode(attachment.text)
        : Uint8Array.from(Buffer.from(attachment.hex ?? "", "hex"))
    await writeFile(path, bytes)
    return attachment.name === undefined
      ? Message.imageAt(path, { mediaType: attachment.media_type })
      : Message.textFileAt(path, { name: attachment.name, escapedLength: attachment.escaped_len })
  })

describeCases(
  "svir encoder cases, attachments read from disk",
  (options) => {
    const codec = OpenAiCodec.make(options as OpenAiCodec.Options)
    return {
      ...codec,
      encode: (request, encodeOptions) =>
        Effect.flatMap(resolveAttachments(request, readFromDisk), (resolved) =>
          codec.encode(resolved, encodeOptions),
        ),
    }
  },
  [new URL("../../conformance/cases/openai/svir/encoder", import.meta.url)],
  { attachments: writeAttachment },
)
