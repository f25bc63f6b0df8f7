// MCP: what minagent adds to a tool call over the same call made with the MCP SDK's Client, and the start-up of
// three reference servers at once against the slowest of them alone. Real servers over stdio, run by this Node.
//   npm run bench:mcp            (MCP_BENCH_CALLS=2000 MCP_BENCH_ROUNDS=5 to change the sizes)

import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { minagentUrl } from "./minagent-root.mjs";

const { connectMcpServers } = await import(minagentUrl("dist/mcp/index.js"));
const { ToolRegistry } = await import(minagentUrl("dist/index.js"));

const require = createRequire(import.meta.url);
const script = (name) => join(dirname(require.resolve(`@modelcontextprotocol/server-${name}/package.json`)), "dist", "index.js");
const calls = Number(process.env.MCP_BENCH_CALLS ?? 2000);
const rounds = Number(process.env.MCP_BENCH_ROUNDS ?? 5);
const folder = mkdtempSync(join(tmpdir(), "minagent-bench-mcp-"));
const servers = {
  everything: { command: process.execPath, args: [script("everything"), "stdio"] },
  filesystem: { command: process.execPath, args: [script("filesystem"), folder] },
  memory: { command: process.execPath, args: [script("memory")], env: { MEMORY_FILE_PATH: join(folder, "memory.jsonl") } },
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  // 1. Per-call overhead: echo through the SDK's Client, and through a minagent registry (argument validation,
  //    the executor, the MCP tool, its connection, result to text). Each has a server process of its own;
  //    rounds alternate so that both see the same machine.
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ ...servers.everything, stderr: "ignore" }));
  const mcp = await connectMcpServers({ mcpServers: { everything: servers.everything } });
  const registry = new ToolRegistry();
  mcp.syncTools(registry);
  const direct = async (i) => client.callTool({ name: "echo", arguments: { message: `m${i}` } });
  const throughMinagent = async (i) => registry.execute({ id: `c${i}`, name: "mcp__everything__echo", arguments: { message: `m${i}` } });
  for (let i = 0; i < 300; i++) {
    await direct(i);
    await throughMinagent(i);
  }
  const perCall = { sdk: [], minagent: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [name, call] of round % 2 === 0
      ? [
          ["sdk", direct],
          ["minagent", throughMinagent],
        ]
      : [
          ["minagent", throughMinagent],
          ["sdk", direct],
        ]) {
      const started = performance.now();
      for (let i = 0; i < calls; i++) await call(i);
      perCall[name].push(((performance.now() - started) * 1000) / calls);
    }
  }
  await client.close();
  await mcp.close();

  // What deferred tools save: the tool schemas every model call carries, with the three servers' tools sent whole
  // and with them held behind ToolSearch (measured in characters of the JSON sent; about 4 to a token).
  const three = await connectMcpServers({ mcpServers: servers });
  const whole = new ToolRegistry();
  await three.prepareTurn(whole)({ messages: [] });
  const deferredRegistry = new ToolRegistry();
  const plan = await three.prepareTurn(deferredRegistry, { deferTools: true })({ messages: [] });
  const offered = deferredRegistry.schemas().filter((schema) => plan.tools.includes(schema.name));
  const wholeCharacters = JSON.stringify(whole.schemas()).length;
  const deferredCharacters = JSON.stringify(offered).length;
  await three.close();
  const sdk = median(perCall.sdk);
  const minagent = median(perCall.minagent);
  console.log(`MCP tool call (server-everything echo over stdio, ${calls} sequential calls × ${rounds} rounds, median round)`);
  console.log(`  SDK Client.callTool       ${sdk.toFixed(1)} µs/call   (rounds: ${perCall.sdk.map((v) => v.toFixed(0)).join(", ")})`);
  console.log(
    `  minagent registry.execute ${minagent.toFixed(1)} µs/call   (rounds: ${perCall.minagent.map((v) => v.toFixed(0)).join(", ")})`,
  );
  console.log(
    `  added by minagent         ${(minagent - sdk).toFixed(1)} µs/call = ${((minagent - sdk) / 1000).toFixed(3)} ms (aim: < 0.5 ms)`,
  );
  console.log(`\nTool schemas on every model call, the three servers' ${whole.names().length} tools`);
  console.log(
    `  sent whole                ${wholeCharacters.toLocaleString("en-US")} characters ≈ ${Math.round(wholeCharacters / 4).toLocaleString("en-US")} tokens`,
  );
  console.log(
    `  deferred (ToolSearch)     ${deferredCharacters.toLocaleString("en-US")} characters ≈ ${Math.round(deferredCharacters / 4).toLocaleString("en-US")} tokens (${((100 * deferredCharacters) / wholeCharacters).toFixed(0)} %), plus each loaded tool's own schema`,
  );

  // 2. Start-up: the three servers at once, against each alone (connect + initialize + tools/list).
  const startTimes = { everything: [], filesystem: [], memory: [], all: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of Object.keys(servers)) {
      const started = performance.now();
      const one = await connectMcpServers({ mcpServers: { [name]: servers[name] } });
      startTimes[name].push(performance.now() - started);
      await one.close();
    }
    const started = performance.now();
    const all = await connectMcpServers({ mcpServers: servers });
    startTimes.all.push(performance.now() - started);
    if (all.status().some((server) => server.state !== "ready")) throw new Error(`a server failed: ${JSON.stringify(all.status())}`);
    await all.close();
  }
  const alone = Object.fromEntries(Object.keys(servers).map((name) => [name, median(startTimes[name])]));
  const slowest = Math.max(...Object.values(alone));
  const together = median(startTimes.all);
  console.log(`\nStart-up to ready (spawn, initialize, tools/list), median of ${rounds}`);
  for (const [name, ms] of Object.entries(alone)) console.log(`  ${name.padEnd(10)} alone   ${ms.toFixed(0)} ms`);
  console.log(
    `  all three at once   ${together.toFixed(0)} ms = ${(together / slowest).toFixed(2)}× the slowest alone (${slowest.toFixed(0)} ms)`,
  );
  const [load] = loadavg();
  console.log(
    `  (${availableParallelism()} cores, load ${load.toFixed(1)}: a server's start is mostly Node loading its code, so three at once need ` +
      `three cores to take no longer than one; on fewer they share them, and the sum alone is ${Object.values(alone)
        .reduce((a, b) => a + b, 0)
        .toFixed(0)} ms)`,
  );

  // 3. The same with start-ups that wait rather than compute (a server that connects somewhere first): three
  //    memory servers that each wait 500 ms before they answer. At once they should take 500 ms and a little, not 1.5 s.
  const slow = (index) => ({
    command: process.execPath,
    args: ["-e", `setTimeout(() => import(${JSON.stringify(script("memory"))}), 500)`],
    env: { MEMORY_FILE_PATH: join(folder, `slow-${index}.jsonl`) },
  });
  const waits = { alone: [], all: [] };
  for (let round = 0; round < rounds; round++) {
    let started = performance.now();
    const one = await connectMcpServers({ mcpServers: { slow: slow(0) } });
    waits.alone.push(performance.now() - started);
    await one.close();
    started = performance.now();
    const three = await connectMcpServers({ mcpServers: { a: slow(1), b: slow(2), c: slow(3) } });
    waits.all.push(performance.now() - started);
    await three.close();
  }
  const waitAlone = median(waits.alone);
  const waitAll = median(waits.all);
  console.log(
    `  servers that wait 500 ms first: one ${waitAlone.toFixed(0)} ms, three at once ${waitAll.toFixed(0)} ms = ${(waitAll / waitAlone).toFixed(2)}× one`,
  );
} finally {
  rmSync(folder, { recursive: true, force: true });
}
