import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Content } from "../src/index.js"

const text = (value: string) => ({ type: "text", text: value })
const png = "iVBORw0KGgo=" // eight bytes: the PNG signature

describe("Content.toToolResult", () => {
  it("joins text blocks with line breaks", () =>
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 6 }),
        (texts) => {
          const result = Content.toToolResult("c1", { content: texts.map(text) })
          assert.deepStrictEqual(result, {
            callId: "c1",
            content: texts.join("\n"),
            isError: false,
          })
        },
      ),
    ))

  it("gives images and audio as placeholders naming their type and size", () =>
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.constantFrom("image", "audio"),
        (bytes, type) => {
          const data = btoa(String.fromCharCode(...bytes))
          const result = Content.toToolResult("c1", {
            content: [{ type, data, mimeType: `${type}/x-test` }],
          })
          assert.strictEqual(result.content, `[${type} ${type}/x-test, ${bytes.length} bytes]`)
          assert.isUndefined(result.attachments)
        },
      ),
    ))

  it("gives images as data URLs or attachments when asked", () => {
    const content = [text("look:"), { type: "image", data: png, mimeType: "image/png" }]
    const url = Content.toToolResult("c1", { content }, { media: "dataUrl" })
    assert.strictEqual(url.content, `look:\ndata:image/png;base64,${png}`)
    const attached = Content.toToolResult("c1", { content }, { media: "attachment" })
    assert.strictEqual(attached.content, "look:\n[image image/png, 8 bytes]")
    assert.deepStrictEqual(attached.attachments, [
      {
        _tag: "Image",
        mediaType: "image/png",
        data: Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10]),
      },
    ])
  })

  it("gives resource links and embedded resources with their URI", () => {
    const result = Content.toToolResult("c1", {
      content: [
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
        { type: "resource", resource: { uri: "file:///b.txt", text: "bee" } },
        {
          type: "resource",
          resource: { uri: "file:///c.bin", blob: "AAAA", mimeType: "application/x-c" },
        },
      ],
    })
    assert.strictEqual(
      result.content,
      "[resource file:///a.txt] a.txt\n[resource file:///b.txt]\nbee\n[resource file:///c.bin application/x-c, 3 bytes]",
    )
  })

  it("writes structuredContent as JSON only when no block gave text", () =>
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const alone = Content.toToolResult("c1", { content: [], structuredContent: value })
        assert.deepStrictEqual(JSON.parse(alone.content), JSON.parse(JSON.stringify(value)))
        const withText = Content.toToolResult("c1", {
          content: [text("22 °C")],
          structuredContent: value,
        })
        assert.strictEqual(withText.content, "22 °C")
      }),
    ))

  it("gives a failed result with the server's text for isError", () => {
    const failed = Content.toToolResult("c1", { content: [text("disk full")], isError: true })
    assert.deepStrictEqual(failed, {
      callId: "c1",
      content: "disk full",
      isError: true,
      failure: "handler_failed",
    })
    const silent = Content.toToolResult("c1", { content: [], isError: true })
    assert.isTrue(silent.isError)
    assert.notStrictEqual(silent.content, "")
  })

  it("names a block of a type it does not know", () => {
    const result = Content.toToolResult("c1", { content: [{ type: "hologram" }, text("ok")] })
    assert.strictEqual(result.content, "[hologram content]\nok")
  })

  it("cuts content past maxChars and says how much was cut", () =>
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400 }),
        fc.integer({ min: 1, max: 200 }),
        (value, maxChars) => {
          const result = Content.toToolResult("c1", { content: [text(value)] }, { maxChars })
          if (value.length <= maxChars) {
            assert.strictEqual(result.content, value)
          } else {
            assert.strictEqual(
              result.content,
              `${value.slice(0, maxChars)}\n…[cut: ${value.length - maxChars} more characters]`,
            )
          }
        },
      ),
    ))
})
