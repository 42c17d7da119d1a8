import { Arguments, Tools } from "@svir/registry"
import { Schema } from "effect"

/** Search for documents matching a query. */
const Search = Schema.Struct({
  query: Schema.String.annotate({ description: "The search query string." }),
  limit: Schema.Int.annotate({ description: "Maximum number of results to return." }).pipe(
    Arguments.withDefault(10),
  ),
})

const search = ({ query, limit }: typeof Search.Type) =>
  `Found results for: ${query} (limit ${limit})`

export const tools = Tools.empty.pipe(
  Tools.add("search", "Search for documents matching a query.", Search, search),
)
