// minagent/dbos when DBOS.launch() fails because nothing listens at the database URL: DBOS records a launch before
// it connects, and would take a run started then and retry its database forever. The run rejects with the
// launch's error instead. No Postgres: the URL points at a closed port of 127.0.0.1.
import { createServer } from "node:net";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { afterAll, expect, it } from "vitest";
import { registerDurableAgent } from "../../src/dbos/index.js";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";

/** A port of 127.0.0.1 that nothing listens on: one the system gave, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return port;
}

afterAll(async () => {
  await DBOS.shutdown();
});

it("durable.run and durable.start reject with the launch's error, and the model is never called", async () => {
  const model = new FakeModel(["never sent"]);
  const durable = registerDurableAgent(new Agent(model, new ToolRegistry()), { name: "launch-failure" });
  DBOS.setConfig({ name: "launch-failure", systemDatabaseUrl: `postgresql://postgres:pw@127.0.0.1:${await closedPort()}/minagent` });
  const launchError: unknown = await DBOS.launch().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(launchError).toBeInstanceOf(Error);
  expect(String(launchError)).toMatch(/ECONNREFUSED/);
  // Before the fix the run retried the connection forever: a timer says so rather than the test's timeout.
  const unsettled = new Promise((resolve) => setTimeout(() => resolve("still waiting after 10 s"), 10_000).unref());
  await expect(Promise.race([durable.run("hello", { workflowId: "launch-failure-1" }), unsettled])).rejects.toBe(launchError);
  await expect(Promise.race([durable.start("hello again"), unsettled])).rejects.toBe(launchError);
  expect(model.requests).toEqual([]);
}, 30_000);
