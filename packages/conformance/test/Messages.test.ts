import { describeCases } from "../src/vitest.js"
import * as MessagesCodec from "./messages/MessagesCodec.js"

// What the README shows a third party doing: their own codec, their own cases, the kit's helper.
describeCases("messages codec (third party)", (options) => MessagesCodec.make(options), [
  new URL("./cases/messages", import.meta.url),
])
