// The runtimes CI runs the suites and the smoke test on, pinned: each is fetched by `npx -y -p`
// in CI only, never a devDependency (root DECISIONS.md 5). Change a version here, and in the
// root README's "Runtimes" section.
export const bun = "1.4.5"
export const deno = "2.9.6"
export const workerd = "1.20261117.1"
/** Debian's package, as `.ci/run` installs it; its version is whatever Debian ships. */
export const chromium = "/usr/bin/chromium"
