import { type Codec, JsonEvents } from "@svir/core"
import { Assembly } from "./assembly.js"
import type * as Options from "./options.js"

/**
 * The synchronous decoder of one streamed answer: core's decoder of JSON events (core D46), which
 * frames the bytes and parses each event's data, over this wire's {@link Assembly}.
 */
export const streamDecoder = (options: Options.Resolved): Codec.StreamDecoder =>
  JsonEvents.decoder(new Assembly(options), options)
