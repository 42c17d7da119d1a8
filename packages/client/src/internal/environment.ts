import { SvirError } from "@svir/core"
import type * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/**
 * `effect/Config` and `effect/ConfigProvider`, loaded on the first read of the environment, not
 * when the client is imported: they cost about a twelfth of a cold start, and a client given its
 * base URL and key never reads the environment (D17).
 */
const loadConfig = Effect.promise(() =>
  Promise.all([import("effect/Config"), import("effect/ConfigProvider")]),
)

/**
 * The value of one variable of the runtime's environment, read by its name only, or `undefined`
 * when it is not set or the runtime refuses to tell: Deno without `--allow-env` throws
 * `NotCapable` for any variable, a page has no `process` (D22).
 */
const runtimeVariable = (name: string): string | undefined => {
  try {
    const value: unknown = (
      globalThis as { readonly process?: { readonly env?: Record<string, unknown> } }
    ).process?.env?.[name]
    return typeof value === "string" ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Reads one variable through Effect Config. A ConfigProvider the caller put in the context
 * supplies it; otherwise a provider holding that one variable of the runtime's environment, never
 * Effect's default, which copies the whole environment and so needs to read every variable (D22).
 */
const read = <A>(
  name: string,
  make: (config: typeof Config) => Config.Config<A>,
): Effect.Effect<A | undefined, SvirError.SvirError> =>
  Effect.flatMap(loadConfig, ([config, configProvider]) =>
    Effect.flatMap(Effect.context<never>(), (context) => {
      const provider =
        Context.getOrUndefined(context, configProvider.ConfigProvider) ??
        configProvider.fromEnvRecord({ [name]: runtimeVariable(name) })
      return config.option(make(config)).pipe(
        Effect.map(Option.getOrUndefined),
        Effect.provideService(configProvider.ConfigProvider, provider),
        Effect.mapError(() => SvirError.make("Config", `${name} could not be read`)),
      )
    }),
  )

/** A base URL from the variable `name`, or `undefined` when it is not set or no name is given. */
export const baseUrl = (
  name: string | undefined,
): Effect.Effect<string | undefined, SvirError.SvirError> =>
  name === undefined ? Effect.undefined : read(name, (config) => config.String(name))

/**
 * A key from the variable `name`, or `undefined` when it is not set or blank (the shell's way of
 * saying none), or no name is given.
 */
export const apiKey = (
  name: string | undefined,
): Effect.Effect<Redacted.Redacted<string> | undefined, SvirError.SvirError> =>
  name === undefined
    ? Effect.undefined
    : Effect.map(
        read(name, (config) => config.Redacted(name)),
        (key) => (key === undefined || Redacted.value(key).trim() === "" ? undefined : key),
      )
