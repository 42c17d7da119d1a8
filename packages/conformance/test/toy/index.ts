/** The toy codecs as a package barrel would export them: `--codec` finds the one `make`. */
export * as ToyCodec from "./ToyCodec.js"
