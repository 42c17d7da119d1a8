import { assert, describe, it } from "@effect/vitest"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { Request, Tool } from "@svir/core"
import { Effect, Exit } from "effect"
import * as fc from "fast-check"
import { OpenAiCodec, ToolSchema } from "../src/index.js"

type Schema = Record<string, unknown>

const fitted = (tools: ReadonlyArray<Tool.Tool>, options?: ToolSchema.Options) =>
  Effect.runSync(ToolSchema.fit(tools, options))

const refusal = (tools: ReadonlyArray<Tool.Tool>, options?: ToolSchema.Options): string => {
  const exit = Effect.runSyncExit(ToolSchema.fit(tools, options))
  assert.isTrue(Exit.isFailure(exit), "expected the tools to be refused")
  const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
  return reason?._tag === "Fail" ? `${reason.error.reason._tag}: ${reason.error.message}` : ""
}

describe("ToolSchema.fit", () => {
  it("cuts a description longer than OpenAI takes, and the body sends the cut one", () => {
    // The sequential-thinking MCP server's tool has a description of about 2,780 characters,
    // which OpenAI refuses: "string too long. Expected a string with maximum length 1024"
    // (microsoft/genaiscript#1381, probelabs/probe#9).
    const long = `${"Think step by step, and revise earlier thoughts when needed. ".repeat(45)}Done.`
    assert.strictEqual(long.length, 2_750)
    const think = Tool.make(`sequentialthinking`, `${long}${"x".repeat(31)}`, {
      type: "object",
      properties: { thought: { type: "string" } },
      required: ["thought"],
    })
    assert.strictEqual(think.description.length, 2_781)
    const { tools, changes } = fitted([think])
    assert.strictEqual(tools[0]!.description.length, ToolSchema.descriptionLimit)
    assert.isTrue(tools[0]!.description.endsWith("…"))
    assert.isTrue(think.description.startsWith(tools[0]!.description.slice(0, -1)))
    assert.deepStrictEqual(changes, [
      {
        tool: "sequentialthinking",
        path: "/description",
        message: "cut the description from 2781 to 1024 characters, the most OpenAI takes",
      },
    ])
    const body = Effect.runSync(
      OpenAiCodec.encode(
        Request.make("gpt-4o-mini").pipe(Request.tools(tools), Request.user("Hi")),
      ),
    )
    assert.strictEqual(body.tools?.[0]?.function.description?.length, 1024)
  })

  it("inlines the $defs of a pydantic-style MCP schema", () => {
    // The shape PagerDuty's MCP server sends (github/copilot-cli#1876); Kimi refuses the $ref
    // with a 400 (CommandCodeAI/command-code#566).
    const schedules = Tool.make("list_schedules", "List on-call schedules.", {
      $defs: {
        ScheduleQuery: {
          properties: {
            query: { type: "string", default: null },
            team_ids: { type: "array", default: null },
            limit: { type: "integer", default: 20 },
          },
          type: "object",
        },
      },
      properties: { query_model: { $ref: "#/$defs/ScheduleQuery" } },
      required: ["query_model"],
      type: "object",
    })
    const { tools, changes } = fitted([schedules])
    assert.deepStrictEqual(tools[0]!.inputSchema, {
      properties: {
        query_model: {
          properties: {
            query: { type: "string", default: null },
            team_ids: { type: "array", default: null, items: {} },
            limit: { type: "integer", default: 20 },
          },
          type: "object",
        },
      },
      required: ["query_model"],
      type: "object",
    })
    assert.deepStrictEqual(
      changes.map((change) => `${change.path}: ${change.message}`),
      [
        "/parameters: dropped $defs: every $ref to it is inlined",
        '/parameters/properties/query_model: inlined $ref "#/$defs/ScheduleQuery"',
        "/parameters/properties/query_model/properties/team_ids: added items: {} to an array without items, which OpenAI refuses",
      ],
    )
    assert.deepStrictEqual(ToolSchema.problems(tools), [])
  })

  it("refuses a recursive $ref, naming the tool and where", () => {
    const tree = Tool.make("tree", "A tree.", {
      type: "object",
      properties: { root: { $ref: "#/$defs/Node" } },
      $defs: {
        Node: {
          type: "object",
          properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } },
        },
      },
    })
    assert.strictEqual(
      refusal([tree]),
      'Unsupported: the tool tree cannot be sent: the schema cannot be inlined: at #/properties/root/properties/children/items: $ref "#/$defs/Node" is recursive (it is used inside what it names), so it cannot be inlined',
    )
  })

  it("makes the top of the parameters one object, or says why it cannot", () => {
    const untyped = Tool.make("a", "", { properties: { x: { type: "string" } } })
    const bare = Tool.make("b", "", { type: "object" })
    const either = Tool.make("c", "", {
      type: "object",
      properties: { id: { type: "string" }, email: { type: "string" } },
      anyOf: [{ required: ["id"] }, { required: ["email"] }],
    })
    const { tools, changes } = fitted([untyped, bare, either])
    assert.deepStrictEqual(
      tools.map((tool) => tool.inputSchema),
      [
        { type: "object", properties: { x: { type: "string" } } },
        { type: "object", properties: {} },
        { type: "object", properties: { id: { type: "string" }, email: { type: "string" } } },
      ],
    )
    assert.deepStrictEqual(
      changes.map((change) => change.tool),
      ["a", "b", "c"],
    )
    assert.include(changes[2]!.message, "dropped anyOf from the top of the parameters")

    assert.strictEqual(
      refusal([Tool.make("shout", "", { type: "string" })]),
      'Unsupported: the tool shout cannot be sent: function parameters must be an object (type "object"), not type "string": describe the arguments as an object with one property for each',
    )
    assert.include(
      refusal([Tool.make("pick", "", { anyOf: [{ type: "object", properties: {} }] })]),
      "not a schema with no type",
    )
    assert.include(
      refusal([
        Tool.make("both", "", { type: "object", properties: {}, allOf: [{ required: [] }] }),
      ]),
      "OpenAI refuses allOf at the top of function parameters",
    )
  })

  it("refuses a name servers refuse: renaming would break the calls", () => {
    assert.strictEqual(
      refusal([Tool.make("read file", "")]),
      'Unsupported: the tool read file cannot be sent: tool name "read file" has " " at position 4: a name is 1 to 64 characters of a-z, A-Z, 0-9, _ and -',
    )
  })

  it("puts a tool that asks for strict mode in the strict form", () => {
    const search: Tool.Tool = {
      ...Tool.make("search", "Search the notes.", {
        type: "object",
        properties: { query: { type: "string" }, limit: { type: "integer", default: 10 } },
        required: ["query"],
      }),
      strict: true,
    }
    const { tools } = fitted([search])
    assert.deepStrictEqual(tools[0], {
      name: "search",
      description: "Search the notes.",
      inputSchema: {
        type: "object",
        properties: {
          query: { type: "string" },
          limit: { type: ["integer", "null"], description: "Default: 10." },
        },
        required: ["query", "limit"],
        additionalProperties: false,
      },
      strict: true,
    })
    assert.deepStrictEqual(ToolSchema.problems(tools), [])
    // Asked for by the caller, strict mode is also asked of the server.
    const now = fitted([Tool.make("now", "The time.")], { strict: true })
    assert.deepStrictEqual(now.tools[0], {
      name: "now",
      description: "The time.",
      inputSchema: { type: "object", properties: {}, required: [], additionalProperties: false },
      strict: true,
    })
    assert.include(
      refusal([Tool.make("tags", "", { type: "object", properties: { t: { type: "array" } } })], {
        strict: true,
      }),
      "an array without items",
    )
  })

  it("gives back a tool with nothing to fix as it is", () => {
    const read = Tool.make("read_file", "Read a file.", {
      type: "object",
      properties: { path: { type: "string" }, head: { type: "number" } },
      required: ["path"],
    })
    const { tools, changes } = fitted([read, Tool.make("now", "")])
    assert.strictEqual(tools[0], read)
    assert.deepStrictEqual(changes, [])
    assert.deepStrictEqual(ToolSchema.problems([read]), [])
  })
})

// Tools as MCP servers and people write them: names that servers take or not, descriptions up
// to three times the limit, and parameters that reach $ref (recursive too), nested arrays with and
// without items, anyOf, and tops that are not objects.

const definitionNames = ["D0", "D1"] as const

const node = (refs: ReadonlyArray<string>) =>
  fc.letrec<{ node: Schema }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", maxDepth: 4 },
      fc.record({ type: fc.constantFrom("string", "integer", "boolean") }),
      fc.record({ type: fc.constant("string"), enum: fc.constant(["x", "y"]) }),
      fc.record({ type: fc.constant("array"), items: tie("node") }, { requiredKeys: ["type"] }),
      fc
        .dictionary(fc.constantFrom("a", "b", "c"), tie("node"), { maxKeys: 3 })
        .chain((properties) =>
          fc.record(
            {
              type: fc.constant("object"),
              properties: fc.constant(properties),
              required: fc.subarray(Object.keys(properties)),
            },
            { requiredKeys: ["properties"] },
          ),
        ),
      fc.record({ anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 2 }) }),
      ...(refs.length === 0
        ? []
        : [fc.constantFrom(...refs).map((name) => ({ $ref: `#/$defs/${name}` }))]),
    ),
  })).node

const parametersSchema: fc.Arbitrary<Schema> = fc
  .tuple(fc.boolean(), fc.nat(5))
  .chain(([recursive, top]) =>
    fc
      .tuple(
        node(recursive ? definitionNames : ["D1"]),
        node(recursive ? definitionNames : []),
        node(definitionNames),
        fc.dictionary(fc.constantFrom("a", "b", "c", "d"), node(definitionNames), { maxKeys: 4 }),
      )
      .map(([d0, d1, any, properties]): Schema => {
        const $defs = { D0: d0, D1: d1 }
        switch (top) {
          case 0:
            return { type: "object", properties, $defs }
          case 1:
            return { properties, required: Object.keys(properties).slice(0, 1) }
          case 2:
            return { type: "object", properties, anyOf: [{ required: ["a"] }, { required: ["b"] }] }
          case 3:
            return { ...any, $defs }
          case 4:
            return { type: "object" }
          default:
            return {}
        }
      }),
  )

const tool: fc.Arbitrary<Tool.Tool> = fc.record({
  name: fc.oneof(
    { weight: 9, arbitrary: fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/) },
    { weight: 1, arbitrary: fc.string({ maxLength: 70 }) },
  ),
  description: fc.oneof(
    fc.string({ maxLength: 50 }),
    fc.string({ minLength: 1000, maxLength: 3100 }),
  ),
  inputSchema: parametersSchema,
  strict: fc.boolean(),
})

const ajv = new AjvJsonSchemaValidator()
const validator = (schema: Schema) =>
  ajv.getValidator((Object.keys(schema).length === 0 ? Tool.noArguments : schema) as never)

const argumentsFor = fc.dictionary(
  fc.constantFrom("a", "b", "c", "d", "e"),
  fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "c"), fc.jsonValue({ maxDepth: 2 })),
    fc.array(
      fc.oneof(fc.string(), fc.integer(), fc.dictionary(fc.constantFrom("a", "b"), fc.string())),
    ),
  ),
  { maxKeys: 4 },
)

describe("ToolSchema properties", () => {
  it("what fit gives passes the check and fits again with no change; what it refuses, the check flags", () => {
    fc.assert(
      fc.property(tool, fc.boolean(), (tool, strict) => {
        const options = strict ? { strict: true } : undefined
        const exit = Effect.runSyncExit(ToolSchema.fit([tool], options))
        if (Exit.isFailure(exit)) {
          assert.isNotEmpty(ToolSchema.problems([tool], options))
          return
        }
        const { tools, changes } = exit.value
        assert.deepStrictEqual(ToolSchema.problems(tools, options), [])
        assert.deepStrictEqual(fitted(tools, options), { tools, changes: [] })
        if (ToolSchema.problems([tool], options).length === 0) {
          assert.strictEqual(tools[0], tool)
          assert.deepStrictEqual(changes, [])
        }
      }),
      { numRuns: 1_000 },
    )
  })

  it("fit keeps every argument the tool took, and takes no other unless it dropped a condition", () => {
    fc.assert(
      fc.property(
        tool.map((tool): Tool.Tool => ({ ...tool, strict: false })),
        fc.array(argumentsFor, { minLength: 1, maxLength: 10 }),
        (tool, values) => {
          const exit = Effect.runSyncExit(ToolSchema.fit([tool]))
          if (Exit.isFailure(exit)) return
          const { tools, changes } = exit.value
          const before = validator(tool.inputSchema)
          const after = validator(tools[0]!.inputSchema)
          const loosened = changes.some((change) => change.message.startsWith("dropped anyOf"))
          for (const value of values) {
            const was = before(value).valid
            const is = after(value).valid
            if (was) assert.isTrue(is, JSON.stringify(value))
            else if (!loosened) assert.isFalse(is, JSON.stringify(value))
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})
