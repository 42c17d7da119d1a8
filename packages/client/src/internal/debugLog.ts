import type { Redaction, SvirError } from "@svir/core"
import * as Effect from "effect/Effect"

/**
 * A debug log line about an error. The error's message is redacted on its own before `line` puts
 * it in a sentence: a message cut inside an echoed key ends with a prefix of it, which is
 * recognized only at the end of a text (D1).
 */
export const aboutError = (
  redaction: Redaction.Redaction,
  error: SvirError.SvirError,
  line: (message: string) => string,
): Effect.Effect<void> => Effect.logDebug(line(redaction.text(error.message)))
