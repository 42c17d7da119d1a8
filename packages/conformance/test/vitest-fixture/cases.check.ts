import { describeCases } from "../../src/vitest.js"
import * as ToyCodec from "../toy/ToyCodec.js"

const cases = (name: string) => new URL(`../cases/${name}`, import.meta.url)

describeCases("failing", ToyCodec.make, [cases("fail/wrong.json")])
describeCases("malformed", ToyCodec.make, [cases("malformed/unknown-key.json")])
describeCases("on disk", ToyCodec.make, [cases("encoder-disk")])
