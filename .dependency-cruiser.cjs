/**
 * The package boundaries (DECISIONS.md 1): no import cycle, type-only ones included; no file of
 * another package reached by a relative path or past its exports; and the arrows of
 * ARCHITECTURE.md, read from the imports themselves. Run by `npm run check:boundaries`.
 */

const { readArrows } = require("./scripts/arrows.cjs")

/** What each package's shipped code may import of the others: ARCHITECTURE.md's arrows. */
const arrows = Object.fromEntries(
  Object.entries(readArrows()).map(([name, { uses }]) => [name, uses]),
)

module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment: "An import cycle, even a type-only one, ties modules that should stand alone.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "by-name-only",
      comment:
        "Another package is imported by its name and its exports, never by a path into its folder.",
      severity: "error",
      from: { path: "^(packages/[^/]+|examples)/" },
      to: { path: "^packages/[^/]+/", pathNot: "^$1/", dependencyTypes: ["local"] },
    },
    {
      name: "resolvable",
      comment:
        "Every import resolves: a path past a package's exports (`@svir/core/src/...`) does not.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: "no-internals",
      comment: "A package's internal modules are its own.",
      severity: "error",
      from: { path: "^(packages/[^/]+)/" },
      to: { path: "^packages/[^/]+/src/internal/", pathNot: "^$1/" },
    },
    ...Object.entries(arrows).map(([name, allowed]) => ({
      name: `arrows-of-${name}`,
      comment: `@svir/${name} may use ${allowed.length === 0 ? "no other package" : allowed.map((other) => `@svir/${other}`).join(", ")} (ARCHITECTURE.md).`,
      severity: "error",
      from: { path: `^packages/${name}/src/` },
      to: {
        path: "^packages/[^/]+/",
        pathNot: `^packages/(${[name, ...allowed].join("|")})/`,
      },
    })),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|coverage|\\.examples)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      conditionNames: ["@svir/source", "import", "types", "default"],
      exportsFields: ["exports"],
      mainFields: ["types", "module", "main"],
      extensions: [".ts", ".mts", ".js", ".mjs"],
    },
  },
}
