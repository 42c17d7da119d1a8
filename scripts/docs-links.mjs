// Run by `npm run docs` after typedoc: checks the links of the API reference in docs/api.
// typedoc's warnings catch a `{@link}` that does not resolve, not a link markdown made up. Refused:
// - a link guessed from bare text (`DECISIONS.md` became `http://DECISIONS.md`: `.md` is a
//   country's domain), whose address is its text with `http://` put before it;
// - a web link whose host is a file name (`http://README.md/`, `https://test.sh`);
// - a relative link to a file that is not in docs/api.
// typedoc.json turns markdown-it's `linkify` off; this check keeps it so.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const out = join(root, "docs", "api")
const fileName = /\.(md|mdx|ts|tsx|mts|cts|js|mjs|cjs|json|jsonc|sh|sse|txt|ya?ml|html|toml)$/i

const htmlFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return htmlFiles(path)
    return entry.name.endsWith(".html") ? [path] : []
  })

const textOf = (html) =>
  html
    .replace(/<[^>]*>/g, "")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&")
    .trim()

if (!existsSync(out)) {
  console.error("docs-links: docs/api is missing; run typedoc first")
  process.exit(1)
}

const problems = []
let links = 0
for (const file of htmlFiles(out)) {
  const html = readFileSync(file, "utf8")
  const page = relative(root, file)
  for (const [, href, inner] of html.matchAll(/<a\b[^>]*?\bhref="([^"]*)"[^>]*>(.*?)<\/a>/gs)) {
    links++
    const text = textOf(inner)
    const web = /^https?:\/\/([^/?#]*)/i.exec(href)
    if (web !== null) {
      const host = web[1]
      if (href === `http://${text}` || href === `https://${text}`) {
        problems.push(`${page}: "${text}" was made a link to ${href}`)
      } else if (fileName.test(host) || host !== host.toLowerCase()) {
        problems.push(`${page}: ${href} is a file name, not a web address`)
      }
      continue
    }
    if (href === "" || href.startsWith("#") || /^[a-z][a-z0-9+.-]*:/i.test(href)) continue
    const target = decodeURIComponent(href.replace(/[?#].*$/, ""))
    if (target === "") continue
    if (!existsSync(join(dirname(file), target))) {
      problems.push(`${page}: ${href} is not a file of docs/api`)
    }
  }
}

for (const line of problems) console.error(`docs-links: ${line}`)
if (problems.length > 0) {
  console.error(
    `docs-links: ${problems.length} broken links; write a file name in backticks, or link it relatively`,
  )
  process.exit(1)
}
console.log(`docs-links: ${links} links checked`)
