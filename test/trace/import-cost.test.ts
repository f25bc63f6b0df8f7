import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** The modules `entry` loads statically (type-only imports and dynamic import() excluded), with what each imports. */
function staticGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (file: string) => {
    if (graph.has(relative(root, file))) return;
    const source = readFileSync(file, "utf8");
    const specifiers = [...source.matchAll(/^(?:import|export)(?!\s+type\b)[^;]*?from\s+"([^"]+)"|^import\s+"([^"]+)"/gm)].map(
      (match) => (match[1] ?? match[2]) as string,
    );
    graph.set(relative(root, file), specifiers);
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) visit(join(dirname(file), specifier.replace(/\.js$/, ".ts")));
    }
  };
  visit(join(root, entry));
  return graph;
}

describe("what importing costs", () => {
  it('`import "minagent"` loads the engine only: no tracing module (but perhaps the scrubber), no provider SDK', () => {
    const graph = staticGraph("src/index.ts");
    const loaded = [...graph.keys()].filter(
      (file) =>
        file.startsWith("src/trace/") ||
        file.startsWith("src/models/anthropic/") ||
        file.startsWith("src/models/openai/") ||
        file.startsWith("src/models/google/"),
    );
    expect(loaded.filter((file) => file !== "src/trace/scrub-secrets.ts")).toEqual([]);
    // The engine may scrub error messages with it; then it loads nothing more but the ground floor's text helpers
    // (patterns and the bounded JSON writer are one module).
    expect(graph.get("src/trace/scrub-secrets.ts") ?? []).toEqual(["../text.js"]);
    expect(graph.get("src/text.ts") ?? []).toEqual([]);
  });

  it('`import "minagent/trace"` loads neither node:fs nor node:path (node:fs from ESM pulls in node:stream and more)', () => {
    const graph = staticGraph("src/trace/index.ts");
    expect(graph.has("src/trace/json-file-exporter.ts")).toBe(true);
    const builtins = [...graph].flatMap(([file, specifiers]) =>
      specifiers.filter((specifier) => /^node:(fs|path|stream)/.test(specifier)).map((specifier) => `${file}: ${specifier}`),
    );
    expect(builtins).toEqual([]);
  });

  it('`import "minagent/otel"` does not load @opentelemetry/api (an optional peer dependency, loaded by the exporter)', () => {
    const imports = [...staticGraph("src/trace/otel/index.ts").values()].flat();
    expect(imports.filter((specifier) => specifier.startsWith("@opentelemetry/"))).toEqual([]);
  });

  it("`minagent demo` imports the tracer and the JSON exporter only when --trace is given", () => {
    const imports = staticGraph("src/cli/commands/demo.ts").get("src/cli/commands/demo.ts") ?? [];
    expect(imports.filter((specifier) => specifier.includes("/trace/"))).toEqual([]);
  });
});
