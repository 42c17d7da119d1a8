/**
 * R2: every plain number of a schema gets Effect's `isFinite` check before the JSON codec is
 * derived, so the codec takes a JSON number and not the strings "NaN", "Infinity", "-Infinity".
 *
 * This folder is the only code of svir that reads Effect Schema's AST (R15): its classes and
 * fields are public but not a promise kept across minors, so the registry's `effect` peer range is
 * the minor these were checked against (`~4.1.0`), and `test/schemaAst/` property-tests both
 * files against Schema's own decoding.
 */
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"

/** Whether Effect's JSON codec lets this number arrive as the string "NaN", "Infinity" or "-Infinity". */
const takesNonFiniteStrings = (ast: SchemaAST.Number): boolean =>
  ast.encoding === undefined && Schema.toCodecJson(Schema.make(ast)).ast.encoding !== undefined

const finite = Schema.isFinite()

const same = <A>(before: ReadonlyArray<A>, after: ReadonlyArray<A>): boolean =>
  before.every((item, i) => item === after[i])

/**
 * The schema with every plain number made finite, so that its JSON codec takes a JSON number and
 * nothing else: the JSON Schema the model sees says `{"type": "number"}`, while Effect's codec
 * would also take the strings "NaN", "Infinity" and "-Infinity", and name them when a number is
 * wrong (R2). The decoded type is unchanged. Declarations are left as they are.
 */
export const jsonNumbersOnly = (root: SchemaAST.AST): SchemaAST.AST => {
  const done = new Map<SchemaAST.AST, SchemaAST.AST>()
  const go = (ast: SchemaAST.AST): SchemaAST.AST => {
    const known = done.get(ast)
    if (known !== undefined) return known
    const out = rebuild(ast)
    done.set(ast, out)
    return out
  }
  const rebuild = (ast: SchemaAST.AST): SchemaAST.AST => {
    if (ast.encoding !== undefined) {
      // Decoding reads the last link's side first: that is where the JSON is.
      const links = ast.encoding
      const last = links[links.length - 1]!
      const to = go(last.to)
      if (to === last.to) return ast
      const encoding: SchemaAST.Encoding = [
        ...links.slice(0, -1),
        new SchemaAST.Link(to, last.transformation),
      ] as unknown as SchemaAST.Encoding
      return Object.assign(Object.create(Object.getPrototypeOf(ast)), ast, { encoding })
    }
    switch (ast._tag) {
      case "Number":
        return takesNonFiniteStrings(ast)
          ? new SchemaAST.Number(
              ast.annotations,
              [...(ast.checks ?? []), finite],
              undefined,
              ast.context,
            )
          : ast
      case "Objects": {
        const properties = ast.propertySignatures.map((property) => {
          const type = go(property.type)
          return type === property.type
            ? property
            : new SchemaAST.PropertySignature(property.name, type)
        })
        const indexes = ast.indexSignatures.map((index) => {
          const type = go(index.type)
          return type === index.type ? index : new SchemaAST.IndexSignature(index.parameter, type)
        })
        if (same(ast.propertySignatures, properties) && same(ast.indexSignatures, indexes))
          return ast
        return new SchemaAST.Objects(
          properties,
          indexes,
          ast.annotations,
          ast.checks,
          undefined,
          ast.context,
          ast.encodingChecks,
        )
      }
      case "Arrays": {
        const elements = ast.elements.map(go)
        const rest = ast.rest.map(go)
        if (same(ast.elements, elements) && same(ast.rest, rest)) return ast
        return new SchemaAST.Arrays(
          ast.isMutable,
          elements,
          rest,
          ast.annotations,
          ast.checks,
          undefined,
          ast.context,
          ast.encodingChecks,
        )
      }
      case "Union": {
        const types = ast.types.map(go)
        if (same(ast.types, types)) return ast
        return new SchemaAST.Union(
          types,
          ast.options,
          ast.annotations,
          ast.checks,
          undefined,
          ast.context,
          ast.encodingChecks,
        )
      }
      case "Suspend": {
        // Rebuilt lazily: the thunk may lead back here, which `done` then answers.
        const thunk = ast.thunk
        return new SchemaAST.Suspend(
          () => go(thunk()),
          ast.annotations,
          undefined,
          undefined,
          ast.context,
        )
      }
      default:
        return ast
    }
  }
  return go(root)
}
