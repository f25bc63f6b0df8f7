// Every TypeScript and JavaScript block of README.md and docs/*.md is checked against what the package exports
// (its package.json "exports" map and the built dist/ types, as a user's import resolves them), all in one
// TypeScript program; the blocks that can run offline then run with node and print what their comments say.
// A block may be marked on the line before it (see doc-snippets.ts): `<!-- snippet: continues -->` goes on from
// the block above; `<!-- snippet: fragment (name, …): why -->` uses those names without defining them. Any block
// may use `model` and `registry`, the reader's own model and tool registry.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import {
  checkSnippets,
  type DocBlock,
  documentationFiles,
  groupSnippets,
  isAssumedName,
  promisedOutput,
  readBlocks,
  type Snippet,
  transpile,
  uninstalledPackages,
} from "./doc-snippets.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
if (!existsSync(join(root, "dist", "index.d.ts"))) throw new Error("dist/ is missing: run `npm run build` first (npm test does)");

// Two blocks with the mistakes this test exists for, checked in the same program: they must fail.
const probe = (line: number, code: string): DocBlock => ({ file: "probe.md", line, language: "ts", code, marker: undefined });
const probes = groupSnippets([
  probe(1, 'import { resolveModel } from "minagent/models";\nconst probeModel = await resolveModel("ollama:qwen3:8b");'),
  probe(10, 'import { Agent } from "minagent";\nconst probeAgent = new Agent(model, registry, { maxStep: 3 });'),
]);
const snippets = groupSnippets(documentationFiles(root).flatMap((path) => readBlocks(path, root)));

// Inside the package, so that `minagent` resolves to the package itself (Node's and TypeScript's self-reference).
const folder = mkdtempSync(join(root, ".readme-snippets-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const checked = checkSnippets([...snippets, ...probes], folder);

const where = (diagnostic: { file: string; line: number; code: number; message: string }) =>
  `${diagnostic.file}:${diagnostic.line}: TS${diagnostic.code} ${diagnostic.message}`;
const problems = (snippet: Snippet) =>
  (checked.diagnostics.get(snippet.name) ?? []).filter((diagnostic) => !isAssumedName(diagnostic, snippet.assumes));

// Modules a block may import and still run here: the package's offline entry points, zod, Node's own.
const offlineModule = /^(minagent(\/(testing|trace|anthropic|openai))?|zod|node:.+)$/;
const runnable = snippets.filter(
  (snippet) =>
    snippet.assumes.length === 0 &&
    problems(snippet).length === 0 &&
    !checked.usesReaderContext.get(snippet.name) &&
    (checked.imports.get(snippet.name) ?? []).every((module) => offlineModule.test(module)),
);

describe("the docs' code blocks", () => {
  it("type-check against the package's exports", () => {
    expect(snippets.flatMap(problems).map(where)).toEqual([]);
  });

  it("would fail for an import minagent does not export, or an option it does not have", () => {
    expect(probes.flatMap(problems).map(where)).toEqual([
      expect.stringMatching(/^probe\.md:2: TS2307 Cannot find module 'minagent\/models'/),
      expect.stringMatching(
        /^probe\.md:12: TS2561 .*'maxStep' does not exist in type 'AgentOptions(<unknown>)?'\. Did you mean to write 'maxSteps'\?$/,
      ),
    ]);
  });

  it("are marked fragments only where they use names they do not define, each with a reason", () => {
    const fragments = snippets.filter((snippet) => snippet.assumes.length > 0);
    for (const snippet of fragments) {
      const undefinedNames = new Set(
        (checked.diagnostics.get(snippet.name) ?? []).filter((diagnostic) => isAssumedName(diagnostic, snippet.assumes)).map((d) => d.text),
      );
      expect(
        snippet.assumes.filter((name) => !undefinedNames.has(name)),
        `${snippet.name}: names its marker assumes but it defines or never uses`,
      ).toEqual([]);
    }
  });

  it("import packages this repository does not install only from the short list that is typed as any", () => {
    for (const name of uninstalledPackages) expect(existsSync(join(root, "node_modules", name, "package.json")), name).toBe(false);
  });

  it("include runnable ones, the README's quick start first", () => {
    expect(runnable[0]?.name).toBe(snippets[0]?.name);
    expect(snippets[0]?.name).toMatch(/^README\.md:/);
  });

  it.each(runnable.map((snippet) => [snippet.name, snippet] as const))(
    "%s runs offline and prints what its comments say",
    async (_, snippet) => {
      const promised = promisedOutput(snippet.code);
      expect(promised.lines.length === 0 || promised.unannotated === 0, "annotate every console.log with what it prints, or none").toBe(
        true,
      );
      const script = (checked.paths.get(snippet.name) as string).replace(/\.m[jt]s$/, ".run.mjs");
      writeFileSync(script, transpile(snippet));
      // No provider can be reached: no keys, and the SDKs' default addresses point at a closed local port.
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/API_KEY|TOKEN|SECRET/i.test(name)));
      Object.assign(env, { ANTHROPIC_BASE_URL: "http://127.0.0.1:9", OPENAI_BASE_URL: "http://127.0.0.1:9" });
      const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: root, env, timeout: 30_000 });
      if (promised.lines.length > 0) expect(stdout.trimEnd().split("\n")).toEqual(promised.lines);
    },
  );
});
