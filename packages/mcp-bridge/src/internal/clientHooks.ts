import type { Client } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

const toolListChanged = "notifications/tools/list_changed"

/** What the toolbox does when the Client reports something. Each is called synchronously by the SDK. */
export interface ClientHooks {
  readonly onError: () => void
  readonly onClose: () => void
  readonly onToolListChanged: () => void
}

/**
 * Hooks into the Client's callbacks until the Scope closes. `onerror` and `onclose` handlers set
 * before are still called first, and put back at the end; the handler of
 * `notifications/tools/list_changed` replaces any set before, and is removed at the end.
 */
export const hookClient = (
  client: Client,
  hooks: ClientHooks,
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const previousOnError = client.onerror
      const previousOnClose = client.onclose
      client.onerror = (error) => {
        previousOnError?.(error)
        hooks.onError()
      }
      client.onclose = () => {
        previousOnClose?.()
        hooks.onClose()
      }
      client.setNotificationHandler(toolListChanged, hooks.onToolListChanged)
      return { previousOnError, previousOnClose }
    }),
    ({ previousOnError, previousOnClose }) =>
      Effect.sync(() => {
        if (previousOnError === undefined) delete client.onerror
        else client.onerror = previousOnError
        if (previousOnClose === undefined) delete client.onclose
        else client.onclose = previousOnClose
        client.removeNotificationHandler(toolListChanged)
      }),
  )
