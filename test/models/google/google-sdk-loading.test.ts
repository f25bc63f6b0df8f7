import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { UsageError } from "../../../src/errors.js";
import { loadGoogleSdk } from "../../../src/models/google/load-google-sdk.js";

const folder = join(dirname(fileURLToPath(import.meta.url)), "../../../src/models/google");

describe("minagent/google and @google/genai (an optional peer dependency)", () => {
  test("a missing SDK is a UsageError that names the package and the command that installs it", async () => {
    const notFound = Object.assign(
      new Error("Cannot find package '@google/genai' imported from /app/dist/models/google/load-google-sdk.js"),
      {
        code: "ERR_MODULE_NOT_FOUND",
      },
    );
    const error = await loadGoogleSdk(() => Promise.reject(notFound)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      "GoogleModel needs the @google/genai package (an optional peer dependency of minagent), which is not installed. Install it: npm i @google/genai",
    );
    expect((error as Error).cause).toBe(notFound);
  });

  test("any other failure to load it passes through as it is", async () => {
    const broken = new SyntaxError("Unexpected token in @google/genai/dist/node/index.mjs");
    await expect(loadGoogleSdk(() => Promise.reject(broken))).rejects.toBe(broken);
  });

  test("the installed SDK loads", async () => {
    expect(typeof (await loadGoogleSdk()).GoogleGenAI).toBe("function");
  });

  test("importing the entry point loads no SDK: the only runtime import of @google/genai is the loader's dynamic import()", () => {
    const runtimeImports = readdirSync(folder).flatMap((file) =>
      [...readFileSync(join(folder, file), "utf8").matchAll(/^(?:import|export)(?!\s+type\b)[^;]*?from\s+"(@google\/[^"]+)"/gm)].map(
        (match) => `${file}: ${match[1]}`,
      ),
    );
    expect(runtimeImports).toEqual([]);
    expect(readFileSync(join(folder, "load-google-sdk.ts"), "utf8")).toContain('import("@google/genai")');
  });
});
