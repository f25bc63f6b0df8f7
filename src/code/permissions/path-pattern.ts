import { isAbsolute, join, relative, resolve, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

/** Where a rule's relative paths start. */
export type PathBases = {
  /** The workspace root: `/path`, `./path` and `path` are taken from here. */
  root: string;
  /** The home directory: `~/path` is taken from here. */
  home: string;
};

/** A compiled `Read(…)` / `Edit(…)` specifier. */
export type PathPattern = {
  /** Whether the absolute path `path` is matched (a matched directory matches everything inside it, as in .gitignore). */
  matches(path: string): boolean;
  /** Whether the directory `path`, or anything directly named inside it, is matched: for searches (Grep, Glob). */
  matchesDirectory(path: string): boolean;
  /** Whether something at any depth inside the directory `path` (or `path` itself) may be matched. */
  mayMatchInside(path: string): boolean;
};

// A name no pattern is written for: `secrets/**` matches `secrets/<probe>`, `*.env` does not.
const probe = "minagent-permission-probe";
// macOS and Windows file systems usually ignore case; there a deny rule must too.
const ignoreCase = process.platform === "darwin" || process.platform === "win32";

/**
 * Compiles a path specifier as Claude Code documents it: gitignore patterns, with four kinds of start —
 * `//path` absolute, `~/path` from the home directory, `/path` from the workspace root, `path` or `./path` from
 * the workspace root (the session's current directory). A pattern without a slash (`*.env`) matches at any depth
 * below its start, as in .gitignore; `./` anchors it (`./.env` is the root's `.env` only). `*` and `**` stay
 * gitignore's: a matched directory matches everything inside it. Throws an Error saying what is wrong.
 */
export function compilePathPattern(specifier: string, bases: PathBases): PathPattern {
  if (specifier.includes("\0")) throw new Error("a path pattern cannot contain a NUL character");
  if (specifier.startsWith("!")) throw new Error("negated patterns (`!…`) are not supported; put the exception in another list");
  if (specifier.startsWith("#")) throw new Error("a path pattern cannot start with `#` (gitignore would read a comment)");
  const { base, pattern } = splitBase(specifier, bases);
  if (pattern === "" || pattern === "/") throw new Error("the path pattern names no file");
  const matcher: Ignore = ignore({ ignorecase: ignoreCase }).add(pattern);
  const matches = (path: string): boolean => {
    const relativePath = relative(base, path);
    if (relativePath === "" || isAbsolute(relativePath) || relativePath === ".." || relativePath.startsWith(`..${sep}`)) return false;
    return matcher.ignores(sep === "/" ? relativePath : relativePath.split(sep).join("/"));
  };
  // A slash at the start or in the middle anchors a gitignore pattern; its segments before a wildcard fix where it matches.
  const body = pattern.replace(/\/+$/, "");
  const segments = body.replace(/^\//, "").split("/");
  const wild = segments.findIndex((segment) => /[*?[\\]/.test(segment));
  const fixed = body.includes("/") ? join(base, ...(wild === -1 ? segments : segments.slice(0, wild))) : base;
  return {
    matches,
    matchesDirectory: (path) => matches(path) || matches(join(path, probe)),
    mayMatchInside: (path) => isWithin(path, fixed) || isWithin(fixed, path),
  };
}

function isWithin(path: string, directory: string): boolean {
  const inside = relative(directory, path);
  return inside === "" || !(isAbsolute(inside) || inside === ".." || inside.startsWith(`..${sep}`));
}

function splitBase(specifier: string, { root, home }: PathBases): { base: string; pattern: string } {
  if (specifier.startsWith("//")) return { base: "/", pattern: specifier.slice(1) };
  if (specifier === "~") return { base: home, pattern: "**" };
  if (specifier.startsWith("~/")) return { base: home, pattern: specifier.slice(1) };
  if (specifier.startsWith("/")) return { base: root, pattern: specifier };
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    // Leading ./ and ../ move the start; what follows is anchored there.
    let base = root;
    let rest = specifier;
    for (;;) {
      if (rest.startsWith("./")) rest = rest.slice(2);
      else if (rest.startsWith("../")) {
        base = resolve(base, "..");
        rest = rest.slice(3);
      } else break;
    }
    return { base, pattern: rest === "" ? "" : `/${rest}` };
  }
  return { base: root, pattern: specifier };
}
