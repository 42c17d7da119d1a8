import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Toolset } from "@svir/registry"
import { Data, Effect, Schema } from "effect"

class FileError extends Data.TaggedError("FileError")<{ readonly message: string }> {}

interface FileTools {
  readonly workingDir: string
}

const Path = (description: string) =>
  Schema.Struct({ path: Schema.String.annotate({ description }) })

export const FileTools = Toolset.make<FileTools>().pipe(
  Toolset.add(
    "list_files",
    "List files in a directory.",
    Path("Directory path relative to the working directory."),
    (self, args) =>
      Effect.tryPromise({
        try: () => fs.readdir(path.join(self.workingDir, args.path)),
        catch: (error) => new FileError({ message: `cannot list ${args.path}: ${error}` }),
      }).pipe(Effect.map((files) => files.sort().join("\n"))),
  ),
  Toolset.add(
    "read_file",
    "Read the contents of a file.",
    Path("File path relative to the working directory."),
    (self, args) =>
      Effect.tryPromise({
        try: () => fs.readFile(path.join(self.workingDir, args.path), "utf8"),
        catch: (error) => new FileError({ message: `cannot read ${args.path}: ${error}` }),
      }),
  ),
)

// polaris: registry.register_toolset(FileTools { working_dir: PathBuf::from("/tmp/sandbox") })
export const fileTools = (workingDir: string) => Toolset.tools(FileTools, { workingDir })
