// The fenced block of README.md that follows the line `<!-- ci: NAME -->`, as written, so CI and
// the benchmarks use the README's own lines. As a command, prints it:
// node scripts/readme-block.mjs NAME [README]
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** The lines of the block marked `<!-- ci: NAME -->` in the README at `file`. */
export const readmeBlock = (name, file = new URL("../README.md", import.meta.url)) => {
  const lines = readFileSync(file, "utf8").split("\n")
  const marker = lines.indexOf(`<!-- ci: ${name} -->`)
  if (marker === -1 || !lines[marker + 1]?.startsWith("```")) {
    throw new Error(`README has no block marked <!-- ci: ${name} --> followed by a fence`)
  }
  const end = lines.indexOf("```", marker + 2)
  if (end === -1) throw new Error(`the block marked <!-- ci: ${name} --> is not closed`)
  return lines.slice(marker + 2, end).join("\n")
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [name, file] = process.argv.slice(2)
  try {
    console.log(readmeBlock(name, file))
  } catch (error) {
    console.error(error.message)
    process.exit(1)
  }
}
