// Runs the suites of the four portable packages under Bun and under Deno (#17), each fetched by
// npx at the version of versions.mjs, and deno-env.mjs (the built client under Deno with no
// --allow-env), and prints the counts per runtime and package, then `N passed, N failed` in all.
// Exits 1 when a test failed or a suite did not run.
// `node scripts/runtimes/suites.mjs [bun|deno]...` (both when none is named).
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as versions from "./versions.mjs"

const root = fileURLToPath(new URL("../..", import.meta.url))
const reporter = fileURLToPath(new URL("./counts.mjs", import.meta.url))
const vitest = join(root, "node_modules", "vitest", "vitest.mjs")
const packages = ["core", "registry", "openai-codec", "client"]

const runtimes = {
  // Without --bun, bunx runs vitest's `#!/usr/bin/env node` under Node, silently.
  bun: ["npx", "-y", "-p", `bun@${versions.bun}`, "bunx", "--bun", "vitest", "run"],
  deno: ["npx", "-y", "-p", `deno@${versions.deno}`, "deno", "run", "-A", vitest, "run"],
}

/**
 * Tests left out on a runtime, each with its reason: a quirk of that runtime or of a test's own
 * server there; a KNOWN BUG or NOT EXPLAINED YET entry is ours to fix, then to remove. `files` are
 * globs for --exclude, `names` parts of test names (regular expressions).
 */
const leftOut = {
  bun: {
    client: {
      files: [
        // Its hostile server (node:http) cuts a connection right after writing N bytes; Bun's
        // node:http sends writes later, so the cut lands before the bytes (as it did for the
        // scripted server's reset, #17): the test server's timing, not the client's.
        "test/hostile/Resets.test.ts",
        // NOT EXPLAINED YET: of 200 to 1,000 concurrent endless streams the client stops at the
        // codec's limit, 1 to 15 connections stay open past the test's 5 s (alone, one closes:
        // Sizes.test.ts passes). Bun's fetch not closing every cancelled body, or Bun's node:http
        // not seeing the close; to investigate, then remove from here.
        "test/hostile/Crowd.test.ts",
      ],
      names: [],
    },
  },
  deno: {
    client: {
      files: [],
      names: [
        // Deno's fetch inflates only the first member of a gzip body made of several (measured:
        // two members "hello " and "world" read as "hello "); the bomb is endless members, so
        // the body ends early and the client fails typed (Protocol, TruncatedStream) before
        // maxResponseBytes is reached.
        "a gzip bomb",
      ],
    },
  },
}

const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(runtimes)
const dir = mkdtempSync(join(tmpdir(), "svir-runtimes-"))
const lines = []
let passed = 0
let failed = 0
for (const runtime of chosen) {
  const command = runtimes[runtime]
  if (command === undefined) throw new Error(`unknown runtime ${runtime}: bun or deno`)
  for (const name of packages) {
    const out = join(dir, `${runtime}-${name}.json`)
    const skip = leftOut[runtime]?.[name] ?? { files: [], names: [] }
    const args = [
      ...command.slice(1),
      "--reporter=dot",
      // One module graph per worker, not per test file: importing Effect again for every file
      // was most of the time (openai-codec under Bun: 84 s isolated, 14 s not). Node's run keeps
      // the isolation.
      "--isolate=false",
      `--reporter=${reporter}`,
      ...skip.files.map((glob) => `--exclude=${glob}`),
      ...(skip.names.length > 0 ? [`--testNamePattern=^(?!.*(${skip.names.join("|")}))`] : []),
    ]
    console.log(`== ${runtime}: ${name}`)
    const started = Date.now()
    const run = spawnSync(command[0], args, {
      cwd: join(root, "packages", name),
      stdio: "inherit",
      // The fuzzers search inputs on Node at 10,000 runs each; here they check that the same
      // code behaves the same, and 1,000 runs do.
      env: { ...process.env, SVIR_COUNTS_FILE: out, SVIR_FUZZ_RUNS: "1000" },
    })
    let counts
    try {
      counts = JSON.parse(readFileSync(out, "utf8"))
    } catch {
      counts = { passed: 0, failed: 1, skipped: 0 }
    }
    if (run.status !== 0 && counts.failed === 0) counts.failed = 1
    passed += counts.passed
    failed += counts.failed
    const seconds = Math.round((Date.now() - started) / 1000)
    lines.push(
      `${runtime}: ${name} ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped (${seconds} s)`,
    )
  }
}
rmSync(dir, { recursive: true, force: true })

if (chosen.includes("deno")) {
  // The built client under Deno with no --allow-env: a client or a typed error, never a defect.
  console.log("== deno: Client.make({ baseUrl }) with no --allow-env (built packages)")
  const run = spawnSync(
    "npx",
    [
      "-y",
      "-p",
      `deno@${versions.deno}`,
      "deno",
      "run",
      "--no-prompt",
      "--allow-net=127.0.0.1",
      fileURLToPath(new URL("./deno-env.mjs", import.meta.url)),
    ],
    { cwd: root, stdio: "inherit" },
  )
  const ok = run.status === 0
  if (ok) passed += 1
  else failed += 1
  lines.push(`deno: client with no --allow-env ${ok ? "1 passed, 0 failed" : "0 passed, 1 failed"}`)
}
for (const line of lines) console.log(line)
console.log(`runtimes: ${passed} passed, ${failed} failed`)
process.exitCode = failed === 0 ? 0 : 1
