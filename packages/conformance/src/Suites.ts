/**
 * The cases that ship with the kit, one suite per first-party wire: the decoder cases (answers
 * and streams as real servers sent them, each saying why it matters) and the encoder cases, with
 * the recordings they read. A codec of either wire, first-party or not, runs them with
 * `svir-conformance --cases openai` (or `anthropic`, `openai-responses`), or with {@link CaseFiles.run} and
 * `describeCases` given a suite's `paths` and `root`.
 *
 * The files are in the package's `cases` folder: `openai/decoder` (Chat Completions), `openai/svir`
 * (the decoder and encoder cases of svir, the Rust crate, and the recordings they read),
 * `anthropic/decoder`, `anthropic/encoder` and `anthropic/recordings` (Messages),
 * `openai-responses/decoder`, `openai-responses/encoder` and `openai-responses/recordings`
 * (Responses), with the Open Responses specification the recordings are checked against
 * (`openai-responses/spec`).
 *
 * @since 0.2.0
 */
import { fileURLToPath } from "node:url"

/**
 * A wire whose cases ship with the kit: `openai` (Chat Completions), `anthropic` (Messages) or
 * `openai-responses` (Responses).
 *
 * @since 0.2.0
 * @category models
 */
export type Wire = "openai" | "anthropic" | "openai-responses"

/**
 * The wires whose cases ship with the kit.
 *
 * @since 0.2.0
 * @category constants
 */
export const wires: ReadonlyArray<Wire> = ["openai", "anthropic", "openai-responses"]

/**
 * Whether a name is one of {@link wires}.
 *
 * @example
 * ```ts
 * import { Suites } from "@svir/conformance/node"
 *
 * Suites.isWire("anthropic") // true
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isWire = (name: string): name is Wire =>
  (wires as ReadonlyArray<string>).includes(name)

/**
 * A wire's shipped cases: the folders of case files, and the folder their recordings must be
 * in (`root`, as `CaseFiles.ReadOptions` takes it).
 *
 * @since 0.2.0
 * @category models
 */
export interface Suite {
  readonly wire: Wire
  readonly paths: ReadonlyArray<string>
  readonly root: string
}

const folders: Readonly<Record<Wire, ReadonlyArray<string>>> = {
  openai: ["decoder", "svir/decoder", "svir/encoder"],
  anthropic: ["decoder", "encoder"],
  "openai-responses": ["decoder", "encoder"],
}

/**
 * The suite of a wire, as paths on this machine.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Runner } from "@svir/conformance"
 * import { CaseFiles, Suites } from "@svir/conformance/node"
 * import { OpenAiCodec } from "@svir/openai-codec"
 *
 * const suite = Suites.of("openai")
 * const report = await Effect.runPromise(
 *   CaseFiles.run((options) => OpenAiCodec.make(options), suite.paths, { root: suite.root }),
 * )
 * console.log(Runner.formatCounts(report))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const of = (wire: Wire): Suite => {
  const root = fileURLToPath(new URL(`../cases/${wire}`, import.meta.url))
  return { wire, paths: folders[wire].map((folder) => `${root}/${folder}`), root }
}
