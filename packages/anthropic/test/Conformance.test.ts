import { describeCases } from "@svir/conformance/vitest"
import { AnthropicCodec } from "../src/index.js"

// The kit feeds every streamed case in strides of 1, 3 and 8192 bytes and whole, with LF and
// CRLF line ends, in the case's mode and in lenient mode; the recordings it reads are those of
// `test/recordings` (see its README).
describeCases(
  "conformance (@svir/conformance runner)",
  (options) => AnthropicCodec.make(options as AnthropicCodec.Options),
  [new URL("./cases", import.meta.url)],
  { root: new URL(".", import.meta.url).pathname },
)
