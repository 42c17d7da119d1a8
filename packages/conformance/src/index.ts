/**
 * The svir codec conformance kit: the case format ({@link Case}) and the runner ({@link Runner}).
 * The vitest helper is the separate entry `@svir/conformance/vitest`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Case from "./Case.js"
/** @since 0.1.0 */
export * as Cli from "./Cli.js"
/** @since 0.2.0 */
export * as Notation from "./Notation.js"
/** @since 0.1.0 */
export * as Runner from "./Runner.js"
