// The smoke test of the built packages in headless Chromium and in workerd (#17): bundles
// smoke.mjs with esbuild, starts @svir/testing's scripted server on 127.0.0.1 in this Node
// process, and runs the bundle in a page of another origin (so CORS is exercised, no proxy) and as
// a Worker. Prints one line per check and `N passed, M failed`; exits 1 when a check failed.
// Needs `npm run build` first, Debian's chromium, and workerd through npx (versions.mjs).
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import { createRequire } from "node:module"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Answer, ScriptedServer } from "@svir/testing"
import * as esbuild from "esbuild"
import * as versions from "./versions.mjs"

const root = fileURLToPath(new URL("../..", import.meta.url))
// playwright-core is a devDependency of @svir/testing, whose CORS the page exercises (root
// DECISIONS.md 5): resolved from there, so the root's dependencies stay the newcomer's.
const { chromium } = createRequire(join(root, "packages", "testing", "package.json"))(
  "playwright-core",
)
const only = process.argv[2] // "chromium" or "workerd"; both when left out
const expectedText = "Hello from the scripted server"

for (const name of ["core", "registry", "openai-codec", "client", "conformance", "testing"]) {
  if (!existsSync(join(root, "packages", name, "dist", "index.js"))) {
    console.error(`packages/${name}/dist is missing: run \`npm run build\` first`)
    process.exit(2)
  }
}

// Whatever hangs (a browser that does not start, a Worker that does not answer), CI goes on.
setTimeout(() => {
  console.error("smoke: 0 passed, 1 failed (no end after 3 minutes)")
  process.exit(1)
}, 180_000).unref()

const dir = mkdtempSync(join(tmpdir(), "svir-smoke-"))
await esbuild.build({
  entryPoints: [fileURLToPath(new URL("./smoke.mjs", import.meta.url))],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  loader: { ".sse": "text" },
  outfile: join(dir, "smoke.js"),
  logLevel: "warning",
})
const bundle = readFileSync(join(dir, "smoke.js"), "utf8")

const server = await ScriptedServer.listen([])
const results = []
const record = (runtime, checks) => {
  for (const check of checks) {
    results.push(check.ok)
    console.log(`${check.ok ? "PASS" : "FAIL"} ${runtime}: ${check.name}: ${check.detail}`)
  }
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = Net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })

const inChromium = async () => {
  // The page comes from another origin than the scripted server: the client's requests are
  // cross-origin, with a preflight, as from an app's dev server.
  const page = Http.createServer((request, response) => {
    if (request.url === "/smoke.js") {
      response.writeHead(200, { "content-type": "text/javascript" })
      return response.end(bundle)
    }
    response.writeHead(200, { "content-type": "text/html" })
    response.end("<!doctype html><title>svir smoke</title>")
  })
  await new Promise((resolve) => page.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${page.address().port}`
  let browser
  try {
    browser = await chromium.launch({
      executablePath: versions.chromium,
      // CI runs as root, where Chromium's sandbox cannot start.
      args: ["--no-sandbox"],
    })
    const tab = await browser.newPage()
    const errors = []
    tab.on("pageerror", (error) => errors.push(error.message))
    await tab.goto(`${origin}/`)
    const checks = await tab.evaluate(
      async ([module, baseUrl]) => (await import(module)).smoke(baseUrl),
      [`${origin}/smoke.js`, server.url],
    )
    checks.push({
      name: "no error in the page",
      ok: errors.length === 0,
      detail: errors.join("; "),
    })
    checks.push({
      name: "a request from another origin, no proxy",
      ok: server.requests.some((r) => r.headers.origin === origin),
      detail: `page ${origin}, scripted server ${server.url}`,
    })
    record(`chromium ${browser.version()}`, checks)
  } finally {
    await browser?.close()
    page.close()
  }
}

const inWorkerd = async () => {
  const port = await freePort()
  writeFileSync(join(dir, "smoke-worker.js"), bundle)
  writeFileSync(
    join(dir, "worker.js"),
    `import { smoke } from "./smoke-worker.js"
export default {
  async fetch(request) {
    return Response.json(await smoke(new URL(request.url).searchParams.get("baseUrl")))
  },
}
`,
  )
  // Without nodejs_compat: a Worker as a user deploys it by default. Its outbound requests may
  // reach loopback only (the scripted server).
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .smoke),
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const smoke :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "smoke-worker.js", esModule = embed "smoke-worker.js"),
  ],
  compatibilityDate = "2026-11-01",
  globalOutbound = "loopback",
);
`,
  )
  const child = spawn(
    "npx",
    ["-y", "-p", `workerd@${versions.workerd}`, "workerd", "serve", join(dir, "config.capnp")],
    { cwd: dir, stdio: ["ignore", "inherit", "inherit"], detached: true },
  )
  try {
    const url = `http://127.0.0.1:${port}/?baseUrl=${encodeURIComponent(server.url)}`
    const deadline = Date.now() + 60_000
    for (;;) {
      try {
        const response = await fetch(url)
        record(`workerd ${versions.workerd}`, await response.json())
        return
      } catch (error) {
        if (Date.now() > deadline) throw error
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
    }
  } finally {
    // npx starts workerd as its child: the group is what was started here.
    process.kill(-child.pid, "SIGTERM")
  }
}

const runs = { chromium: inChromium, workerd: inWorkerd }
try {
  for (const [name, run] of Object.entries(runs)) {
    if (only !== undefined && only !== name) continue
    server.push(Answer.text(expectedText))
    try {
      await run()
    } catch (error) {
      record(name, [{ name: "ran", ok: false, detail: error?.stack ?? error }])
    }
  }
} finally {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
}
const passed = results.filter(Boolean).length
console.log(`smoke: ${passed} passed, ${results.length - passed} failed`)
// Exits now: a handle left open by a failed run must not keep CI waiting.
process.exit(results.length > 0 && passed === results.length ? 0 : 1)
