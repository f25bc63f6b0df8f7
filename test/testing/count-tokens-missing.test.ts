import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { temporaryFolder } from "../helpers/temporary-folder.js";

const dist = fileURLToPath(new URL("../../dist/", import.meta.url));

test("without js-tiktoken installed, loading the tokenizer says which package to install", async () => {
  expect(existsSync(join(dist, "testing/count-tokens.js")), "dist/ is missing: npm test builds it first (npm run build)").toBe(true);
  // The built module and what it imports, alone in a directory with no node_modules above it.
  const directory = temporaryFolder("minagent-no-tiktoken-");
  mkdirSync(join(directory, "testing"));
  copyFileSync(join(dist, "testing/count-tokens.js"), join(directory, "testing/count-tokens.js"));
  copyFileSync(join(dist, "errors.js"), join(directory, "errors.js"));
  copyFileSync(join(dist, "optional-peer.js"), join(directory, "optional-peer.js"));
  writeFileSync(join(directory, "package.json"), '{ "type": "module" }');
  const script = `import("./testing/count-tokens.js").then((m) => m.loadO200kTokenizer()).then(
    () => console.log("loaded"),
    (error) => console.log(JSON.stringify({ name: error.name, message: error.message, cause: error.cause?.code })),
  );`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { cwd: directory });
  expect(JSON.parse(stdout)).toEqual({
    name: "UsageError",
    message:
      "Counting tokens (withTokenCounting, loadO200kTokenizer) needs the js-tiktoken package, which is not installed: npm i -D js-tiktoken",
    cause: "ERR_MODULE_NOT_FOUND",
  });
});
