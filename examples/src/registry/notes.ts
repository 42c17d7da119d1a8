import { Toolset } from "@svir/registry"
import { Schema } from "effect"

interface Notes {
  readonly kept: Array<string>
}

const Note = Schema.Struct({ text: Schema.String.annotate({ description: "What to keep." }) })

export const NoteTools = Toolset.make<Notes>().pipe(
  Toolset.add("note", "Keep a note for later.", Note, (self, { text }) => {
    self.kept.push(text)
    return "kept"
  }),
  Toolset.add("notes", "Read back every note kept so far.", Schema.Struct({}), (self) =>
    self.kept.join("\n"),
  ),
)

// Every handler sees this one object.
export const notes = () => Toolset.tools(NoteTools, { kept: [] })
