/**
 * The parts of the conformance kit that need a file system (`node:fs`, so Node, Bun or Deno):
 * {@link CaseFiles}, reading case files, folders and recordings, {@link Suites}, the cases that
 * ship with the kit for each first-party wire, and {@link Cli}, the `svir-conformance` command. The main entry `@svir/conformance` loads in a browser or a Worker.
 *
 * @since 0.2.0
 */

/** @since 0.2.0 */
export * as CaseFiles from "./CaseFiles.js"
/** @since 0.2.0 */
export * as Cli from "./Cli.js"
/** @since 0.2.0 */
export * as Suites from "./Suites.js"
