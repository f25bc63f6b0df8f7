import picomatch from "picomatch";
import { ToolError } from "../../../errors.js";

/** ripgrep's file types (`rg --type-list`), the common ones, by extension. */
const fileTypes: Record<string, readonly string[]> = {
  js: ["js", "jsx", "mjs", "cjs"],
  ts: ["ts", "tsx", "mts", "cts"],
  py: ["py", "pyi"],
  rust: ["rs"],
  go: ["go"],
  java: ["java", "jsp"],
  kotlin: ["kt", "kts"],
  scala: ["scala", "sbt", "sc"],
  swift: ["swift"],
  c: ["c", "h"],
  cpp: ["cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "h", "inl"],
  cs: ["cs"],
  ruby: ["rb", "erb", "gemspec", "rake"],
  php: ["php"],
  lua: ["lua"],
  dart: ["dart"],
  elixir: ["ex", "exs", "eex", "heex"],
  haskell: ["hs", "lhs"],
  zig: ["zig"],
  sh: ["sh", "bash", "zsh", "fish"],
  md: ["md", "markdown", "mdx", "mkd"],
  json: ["json", "jsonc", "jsonl", "json5", "geojson"],
  yaml: ["yaml", "yml"],
  toml: ["toml"],
  xml: ["xml", "xsd", "xsl", "xslt", "svg"],
  html: ["html", "htm", "xhtml"],
  css: ["css", "scss", "sass", "less"],
  sql: ["sql"],
  txt: ["txt"],
  vue: ["vue"],
  svelte: ["svelte"],
  protobuf: ["proto"],
};

const typeAliases: Record<string, string> = {
  javascript: "js",
  typescript: "ts",
  python: "py",
  rs: "rust",
  golang: "go",
  kt: "kotlin",
  "c++": "cpp",
  csharp: "cs",
  rb: "ruby",
  bash: "sh",
  shell: "sh",
  markdown: "md",
  yml: "yaml",
  text: "txt",
  proto: "protobuf",
};

/** Whether a file (its path relative to the folder searched) passes `glob` and `type`. */
export function fileFilter(glob: string | undefined, type: string | undefined): (relative: string) => boolean {
  const checks: ((relative: string) => boolean)[] = [];
  if (type !== undefined) {
    const name = type.trim().toLowerCase();
    const extensions = fileTypes[typeAliases[name] ?? name];
    if (!extensions)
      throw new ToolError(
        `Unknown file type ${JSON.stringify(type)}. Known types: ${Object.keys(fileTypes).join(", ")}. Or use glob, e.g. "*.${name}".`,
      );
    const wanted = new Set(extensions);
    checks.push((relative) => wanted.has(relative.slice(relative.lastIndexOf(".") + 1).toLowerCase()));
  }
  const globs = glob?.match(/(?:\{[^}]*\}|[^\s,{])+/g) ?? [];
  if (globs.length > 0) {
    const matcher = (pattern: string) => picomatch(pattern, { dot: true, basename: !pattern.includes("/") });
    const included = globs.filter((pattern) => !pattern.startsWith("!")).map(matcher);
    const excluded = globs.filter((pattern) => pattern.startsWith("!")).map((pattern) => matcher(pattern.slice(1)));
    checks.push(
      (relative) => (included.length === 0 || included.some((test) => test(relative))) && !excluded.some((test) => test(relative)),
    );
  }
  return (relative) => checks.every((check) => check(relative));
}
