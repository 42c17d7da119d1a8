/** Responses events and resources as the tests write them, valid against the specification. */

/** Events as a Server-Sent Events stream: each one's `type` as its `event:` line, its JSON as data. */
export const sse = (...events: ReadonlyArray<unknown>): string =>
  events
    .map((data) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`)
    .join("")

/** A response resource with every field the Open Responses specification requires. */
export const responseResource = (fields: object = {}) => ({
  id: "resp_1",
  object: "response",
  created_at: 1765552659,
  completed_at: null,
  status: "in_progress",
  model: "gpt-5",
  output: [],
  error: null,
  incomplete_details: null,
  usage: null,
  previous_response_id: null,
  instructions: null,
  tools: [],
  tool_choice: "auto",
  truncation: "disabled",
  parallel_tool_calls: true,
  text: { format: { type: "text" } },
  top_p: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
  top_logprobs: 0,
  temperature: 1,
  reasoning: null,
  max_output_tokens: null,
  max_tool_calls: null,
  store: false,
  background: false,
  service_tier: "default",
  metadata: {},
  safety_identifier: null,
  prompt_cache_key: null,
  ...fields,
})
