import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";

// minagent/mcp and minagent/dbos sit on the engine as a user's code does: through src/engine.ts (its public API),
// the ground floor (errors, text helpers, the optional-peer loader), their own files, and packages. Never a core/, tools/, models/ or trace/
// module directly, and never code/ (minagent/code builds on minagent/mcp, not the other way).
// A specifier is read relative to the folder's root: a file in a subfolder (mcp/auth/) names the root's files as
// ../x.js and the ground floor as ../../x.js, so its specifiers are rewritten to the root's before the test.
const allowed = /^(\.\.\/(engine|errors|optional-peer|text)\.js|\.\/([a-z0-9-]+\/)?[a-z0-9-]+\.js|[^.].*)$/;

/** `specifier`, named in `file` (a path below the folder's root), as the root would name the same module. */
function fromRoot(file: string, specifier: string): string {
  const depth = file.split("/").length - 1;
  if (!specifier.startsWith(".") || depth === 0) return specifier;
  const parts = [...file.split("/").slice(0, -1), ...specifier.split("/")];
  const resolved: string[] = [];
  for (const part of parts) {
    if (part === ".") continue;
    if (part === ".." && resolved.length > 0 && resolved.at(-1) !== "..") resolved.pop();
    else resolved.push(part);
  }
  const path = resolved.join("/");
  return path.startsWith("..") ? path : `./${path}`;
}

/** Every module specifier a source file names: static imports and exports (type-only ones too) and import() calls. */
function specifiersOf(source: string): string[] {
  return [...source.matchAll(/(?:^(?:import|export)[^;]*?from\s+|^import\s+|import\(\s*)"([^"]+)"/gms)].map((match) => match[1] as string);
}

describe.each(["mcp", "dbos"])("src/%s/ imports the engine only through src/engine.ts", (folder) => {
  it("names no other minagent module than engine.js, errors.js, optional-peer.js and its own files", async () => {
    const directory = new URL(`../../src/${folder}/`, import.meta.url);
    const files = (await readdir(directory, { recursive: true })).filter((file) => file.endsWith(".ts"));
    expect(files).toContain("index.ts");
    const specifiers = (
      await Promise.all(files.map(async (file) => ({ file, source: await readFile(new URL(file, directory), "utf8") })))
    ).flatMap(({ file, source }) => specifiersOf(source).map((specifier) => ({ file, specifier: fromRoot(file, specifier) })));
    expect(specifiers.some(({ specifier }) => specifier === "../engine.js")).toBe(true); // the walk reads imports
    expect(specifiers.filter(({ specifier }) => !allowed.test(specifier))).toEqual([]);
  });
});

it("the rule refuses the imports it is there to keep out", () => {
  const refused = ["../core/types.js", "../tools/tool-schema.js", "../models/provider-error.js", "../trace/scrub-secrets.js"];
  expect(
    [...refused, "../code/sandbox/create-sandbox.js", "../index.js", "./sub/deeper/file.js"].filter((specifier) => allowed.test(specifier)),
  ).toEqual([]);
  // From a subfolder: its neighbours and the root's files are its folder's; two floors up is outside but the engine.
  expect(fromRoot("auth/provider.ts", "../config.js")).toBe("./config.js");
  expect(fromRoot("auth/provider.ts", "./store.js")).toBe("./auth/store.js");
  expect(fromRoot("auth/provider.ts", "../../engine.js")).toBe("../engine.js");
  expect(fromRoot("auth/provider.ts", "../../core/types.js")).toBe("../core/types.js");
  const accepted = [
    "../engine.js",
    "../errors.js",
    "../optional-peer.js",
    "./config.js",
    "node:crypto",
    "@dbos-inc/dbos-sdk",
    "@modelcontextprotocol/sdk/client/index.js",
  ];
  expect(accepted.filter((specifier) => !allowed.test(specifier))).toEqual([]);
  expect(specifiersOf('import type { Sandbox } from "../code/sandbox/create-sandbox.js";\nconst sdk = import("@x/y");')).toEqual([
    "../code/sandbox/create-sandbox.js",
    "@x/y",
  ]);
});

// minagent/code sits on the engine and on minagent/mcp as a user's code does: engine.ts, the public entry (index.ts,
// for the patterns), minagent/mcp's entry, and the ground floor (errors, text helpers, the optional-peer loader, session titles).
const codeMayImport = new Set(["engine.ts", "index.ts", "mcp/index.ts", "errors.ts", "text.ts", "optional-peer.ts", "session-title.ts"]);

it("src/code/ names no minagent module outside itself but the engine's public API, the public entries and the ground floor", async () => {
  const { dirname, relative, resolve } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const source = fileURLToPath(new URL("../../src/", import.meta.url));
  const code = resolve(source, "code");
  const files = (await readdir(code, { recursive: true })).filter((file) => file.endsWith(".ts") || file.endsWith(".cts"));
  expect(files).toContain("coding-agent.ts");
  const outside = [];
  for (const file of files) {
    for (const specifier of specifiersOf(await readFile(resolve(code, file), "utf8"))) {
      if (!specifier.startsWith(".")) continue;
      const target = relative(source, resolve(dirname(resolve(code, file)), specifier)).replace(/\.js$/, ".ts");
      if (!target.startsWith("code/") && !codeMayImport.has(target)) outside.push({ file: `code/${file}`, specifier });
    }
  }
  expect(outside).toEqual([]);
});
