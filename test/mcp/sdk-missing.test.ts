// minagent/mcp where @modelcontextprotocol/sdk (an optional peer dependency) is not installed: the built package in a
// folder whose node_modules has every other dependency.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { temporaryFolder } from "../helpers/temporary-folder.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("without the MCP SDK, connecting says which package to install; importing minagent/mcp does not need it", async () => {
  expect(existsSync(join(root, "dist/mcp/index.js")), "dist/ is missing: npm test builds it first (npm run build)").toBe(true);
  const directory = temporaryFolder("minagent-no-mcp-sdk-");
  cpSync(join(root, "dist"), join(directory, "dist"), { recursive: true });
  writeFileSync(join(directory, "package.json"), '{ "type": "module" }');
  mkdirSync(join(directory, "node_modules"));
  for (const entry of readdirSync(join(root, "node_modules")))
    if (entry !== "@modelcontextprotocol" && !entry.startsWith("."))
      symlinkSync(join(root, "node_modules", entry), join(directory, "node_modules", entry));
  const script = `const { connectMcpServers } = await import("./dist/mcp/index.js");
    await connectMcpServers({ mcpServers: { files: { command: "npx" } } }).then(
      () => console.log("connected"),
      (error) => console.log(JSON.stringify({ name: error.name, message: error.message })),
    );`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { cwd: directory });
  expect(JSON.parse(stdout)).toEqual({
    name: "UsageError",
    message:
      "MCP servers need the @modelcontextprotocol/sdk package (an optional peer dependency of minagent), which is not installed. Install it: npm i @modelcontextprotocol/sdk",
  });
});
