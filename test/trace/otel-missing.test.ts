import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { loadOpenTelemetryApi } from "../../src/trace/otel/load-open-telemetry-api.js";
import { temporaryFolder } from "../helpers/temporary-folder.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** A folder with no node_modules anywhere above it: nothing can be resolved from there. */
function emptyFolder(): string {
  const folder = temporaryFolder("minagent-no-otel-");
  expect(() => createRequire(join(folder, "index.js")).resolve("@opentelemetry/api")).toThrow(/Cannot find module/);
  return folder;
}

describe("minagent/otel without @opentelemetry/api (an optional peer dependency)", () => {
  it("says which package to install, keeping Node's error as the cause", () => {
    const require = createRequire(join(emptyFolder(), "index.js"));
    let thrown: unknown;
    try {
      loadOpenTelemetryApi(require);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toMatch(
      /^minagent\/otel needs the @opentelemetry\/api package .* Install it: npm i @opentelemetry\/api$/,
    );
    expect(((thrown as Error).cause as NodeJS.ErrnoException).code).toBe("MODULE_NOT_FOUND");
  });

  it("passes on any other failure as it is", () => {
    const broken = new SyntaxError("Unexpected token in @opentelemetry/api/build/src/index.js");
    expect(() =>
      loadOpenTelemetryApi(() => {
        throw broken;
      }),
    ).toThrow(broken);
  });

  it("loads the real package when it is installed", () => {
    expect(typeof loadOpenTelemetryApi().trace.getTracer).toBe("function");
  });

  it("end to end: the entry point imports, and creating an exporter fails with the message (a child process, no node_modules)", async () => {
    // The entry point's modules, compiled alone into a folder where @opentelemetry/api cannot be found.
    const folder = emptyFolder();
    const pending = ["src/trace/otel/index.ts"];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      const source = readFileSync(join(root, file), "utf8");
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      });
      const output = join(folder, file.replace(/\.ts$/, ".js"));
      mkdirSync(dirname(output), { recursive: true });
      writeFileSync(output, outputText);
      for (const [, specifier] of outputText.matchAll(/from\s+"(\.[^"]+)"/g)) {
        pending.push(relative(root, join(root, dirname(file), (specifier as string).replace(/\.js$/, ".ts"))));
      }
    }
    writeFileSync(join(folder, "package.json"), '{ "type": "module" }');
    const script = `
      const otel = await import("./src/trace/otel/index.js");
      console.log("imported");
      try { new otel.OpenTelemetryExporter(); } catch (error) { console.log(error.name + ": " + error.message); }
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
      cwd: folder,
      env: { PATH: process.env.PATH },
    });
    expect(stdout).toBe(
      "imported\nUsageError: minagent/otel needs the @opentelemetry/api package (an optional peer dependency of minagent), which is not installed. Install it: npm i @opentelemetry/api\n",
    );
  });
});
