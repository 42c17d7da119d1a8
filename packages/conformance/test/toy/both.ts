/** Two codecs in one module: `--codec` cannot tell which `make` is meant. */
export * as MessagesCodec from "../messages/MessagesCodec.js"
export * as ToyCodec from "./ToyCodec.js"
