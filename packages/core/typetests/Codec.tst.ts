import { Codec, type Completion, type Event, type Request, type SvirError } from "@svir/core"
import type { Effect, Stream } from "effect"
import { describe, expect, test } from "tstyche"

declare const encode: (
  request: Request.Request,
  options: Codec.EncodeOptions,
) => Effect.Effect<unknown, SvirError.SvirError>
declare const decodeResponse: (
  body: string,
) => Effect.Effect<Completion.Completion, SvirError.SvirError>
declare const decoder: () => Codec.StreamDecoder

declare const codec: Codec.Codec
declare const request: Request.Request
declare const bytes: Stream.Stream<Uint8Array, "socket closed", "Socket">

describe("Codec.Codec", () => {
  test("name, path, encode, decodeResponse and decoder make a codec; http and fields may be left out", () => {
    expect({
      name: "echo",
      path: "/echo",
      encode,
      decodeResponse,
      decoder,
    }).type.toBeAssignableTo<Codec.Codec>()
  })

  test("a codec missing a required member does not compile", () => {
    expect({
      path: "/echo",
      encode,
      decodeResponse,
      decoder,
    } satisfies Codec.Codec).type.toRaiseError("Property 'name' is missing")
    expect({
      name: "echo",
      encode,
      decodeResponse,
      decoder,
    } satisfies Codec.Codec).type.toRaiseError("Property 'path' is missing")
    expect({
      name: "echo",
      path: "/echo",
      decodeResponse,
      decoder,
    } satisfies Codec.Codec).type.toRaiseError("Property 'encode' is missing")
    expect({
      name: "echo",
      path: "/echo",
      encode,
      decoder,
    } satisfies Codec.Codec).type.toRaiseError("Property 'decodeResponse' is missing")
    expect({
      name: "echo",
      path: "/echo",
      encode,
      decodeResponse,
    } satisfies Codec.Codec).type.toRaiseError("Property 'decoder' is missing")
  })

  test("a decodeResponse that gives something other than a Completion does not compile", () => {
    expect({
      name: "echo",
      path: "/echo",
      encode,
      decodeResponse: (body: string) => body,
      decoder,
    } satisfies Codec.Codec).type.toRaiseError(
      "Type 'string' is not assignable to type 'Effect<Completion, SvirError",
    )
  })
})

describe("what a codec decodes", () => {
  test("a whole response is a Completion, or a SvirError", () => {
    expect(codec.decodeResponse("{}")).type.toBe<
      Effect.Effect<Completion.Completion, SvirError.SvirError>
    >()
  })

  test("a body is encoded as an unknown JSON value, or a SvirError", () => {
    expect(codec.encode(request, { stream: true })).type.toBe<
      Effect.Effect<unknown, SvirError.SvirError>
    >()
  })

  test("a step of a stream decoder is its events and the error that ended it, if one did", () => {
    const step = codec.decoder().push(new Uint8Array())
    expect(step).type.toBe<Codec.DecodeStep>()
    expect(step.events).type.toBe<ReadonlyArray<Event.Event>>()
    expect(step.error).type.toBe<SvirError.SvirError | undefined>()
    expect(Codec.decodeChunks(codec, [])).type.toBe<Codec.DecodeStep>()
  })

  test("decodeStream gives events, with the bytes' error and services kept", () => {
    expect(Codec.decodeStream(codec, bytes)).type.toBe<
      Stream.Stream<Event.Event, "socket closed" | SvirError.SvirError, "Socket">
    >()
  })

  test("the events are the six kinds a wire gives", () => {
    expect<Event.Event["_tag"]>().type.toBe<
      | "TextDelta"
      | "ReasoningDelta"
      | "RefusalDelta"
      | "ToolCallDelta"
      | "LogprobsDelta"
      | "Completed"
    >()
  })

  test("http fills in every fact a codec left out", () => {
    expect(Codec.http(codec)).type.toBe<Codec.Http>()
    expect(Codec.http(codec).headers("sk-1")).type.toBe<Readonly<Record<string, string>>>()
  })
})
