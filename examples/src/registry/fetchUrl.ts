import { Arguments, Tools } from "@svir/registry"
import { Schema } from "effect"

const FetchUrl = Schema.Struct({
  url: Schema.String.annotate({ description: "The URL to fetch." }),
  timeout_secs: Schema.Int.annotate({ description: "Request timeout in seconds." }).pipe(
    Arguments.withDefault(30),
  ),
  follow_redirects: Schema.Boolean.annotate({ description: "Whether to follow redirects." }).pipe(
    Arguments.withDefault(true),
  ),
})

export const tools = Tools.empty.pipe(
  Tools.add("fetch_url", "Fetch a web page.", FetchUrl, ({ url }) => `Fetched ${url}`),
)
