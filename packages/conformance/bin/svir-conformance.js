#!/usr/bin/env node
// Runs the built command (dist). In a clone that was not built, or when started with
// `--conditions=@svir/source`, it runs the TypeScript sources through tsx instead.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const built = new URL("../dist/Cli.js", import.meta.url)
const fromSource = process.execArgv.some((arg) => arg.includes("@svir/source"))

const runMain = async (url) => {
  const [{ Effect }, { main }] = await Promise.all([import("effect"), import(url.href)])
  process.exitCode = await Effect.runPromise(main(process.argv.slice(2)))
}

if (fromSource) {
  await runMain(new URL("../src/Cli.ts", import.meta.url))
} else if (existsSync(built)) {
  await runMain(built)
} else {
  const child = spawnSync(
    process.execPath,
    [
      "--conditions=@svir/source",
      "--import",
      import.meta.resolve("tsx"),
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: "inherit" },
  )
  process.exitCode = child.status ?? 2
}
