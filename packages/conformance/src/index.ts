/**
 * The svir codec conformance kit: the case format ({@link Case}) and the runner ({@link Runner}).
 * It loads anywhere, a browser or a Worker too. Case files on disk and the `svir-conformance`
 * command are the entry `@svir/conformance/node`; the vitest helper is `@svir/conformance/vitest`.
 *
 * @since 0.2.0
 * @packageDocumentation
 */

export * as Case from "./Case.js"
export * as Notation from "./Notation.js"
export * as Runner from "./Runner.js"
