// examples/durable/refund.mjs runs as documented: `start` exits while the run waits for approval, `approve` (another
// process) approves it, `resume` recovers the run and finishes it. The example imports "minagent" and
// "minagent/dbos" as a user's code does: from a package folder whose dist/ is src/ compiled for this test.
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { databaseUrl, startPostgres, type TestPostgres } from "../helpers/postgres.mjs";
import { compileForWorkers } from "./fixtures/compile.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
let server: TestPostgres;
let compiled: { folder: string; remove: () => void };
let folder: string;

beforeAll(async () => {
  [server, compiled] = await Promise.all([startPostgres(), compileForWorkers(`minagent-dbos-example-${process.pid}`)]);
  folder = mkdtempSync(join(tmpdir(), "minagent-durable-example-"));
  const modules = join(folder, "node_modules");
  mkdirSync(join(modules, "minagent"), { recursive: true });
  copyFileSync(join(root, "package.json"), join(modules, "minagent", "package.json"));
  symlinkSync(compiled.folder, join(modules, "minagent", "dist"));
  symlinkSync(join(root, "node_modules", "@dbos-inc"), join(modules, "@dbos-inc"));
  copyFileSync(join(root, "examples", "durable", "refund.mjs"), join(folder, "refund.mjs"));
}, 120_000);
afterAll(() => {
  server?.stop();
  compiled?.remove();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

function example(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DBOS_SYSTEM_DATABASE_URL: databaseUrl(server.url, "minagent_example") };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["refund.mjs", ...args],
      { cwd: folder, env, timeout: 60_000, killSignal: "SIGKILL" },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

it("examples/durable/refund.mjs: start, approve from another process, resume", async () => {
  const started = await example("start", "refund-42");
  expect(started).toMatchObject({ code: 0, stdout: "refund-42 waits for approval of: refund\n" });
  const approved = await example("approve", "refund-42");
  expect(approved).toMatchObject({ code: 0, stdout: 'approving refund({"order":"1234","cents":4999})\n' });
  const resumed = await example("resume", "refund-42");
  expect(resumed).toMatchObject({
    code: 0,
    stdout: "completed: Done: refunded 4999 cents on order 1234 (idempotency key run1_refund-42/call_1)\n",
  });
  expect(`${started.stderr}${approved.stderr}${resumed.stderr}`).not.toContain(server.password);
}, 120_000);
