import { SvirError } from "@svir/core"
import type * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/**
 * `effect/Config`, loaded on the first read of the environment, not when the client is imported:
 * it costs about a twelfth of a cold start, and a client given its base URL and key never reads
 * the environment (D17).
 */
const loadConfig = Effect.promise(() => import("effect/Config"))

/** Reads one variable through Effect Config (a ConfigProvider in the context can supply it). */
const read = <A>(
  name: string,
  make: (config: typeof Config) => Config.Config<A>,
): Effect.Effect<A | undefined, SvirError.SvirError> =>
  Effect.flatMap(loadConfig, (config) =>
    config.option(make(config)).pipe(
      Effect.map(Option.getOrUndefined),
      Effect.mapError(() => SvirError.make("Config", `${name} could not be read`)),
    ),
  )

/** `OPENAI_BASE_URL`, or `undefined` when it is not set. */
export const baseUrl: Effect.Effect<string | undefined, SvirError.SvirError> = read(
  "OPENAI_BASE_URL",
  (config) => config.String("OPENAI_BASE_URL"),
)

/** `OPENAI_API_KEY`, or `undefined` when it is not set or blank: the shell's way of saying none. */
export const apiKey: Effect.Effect<Redacted.Redacted<string> | undefined, SvirError.SvirError> =
  Effect.map(
    read("OPENAI_API_KEY", (config) => config.Redacted("OPENAI_API_KEY")),
    (key) => (key === undefined || Redacted.value(key).trim() === "" ? undefined : key),
  )
