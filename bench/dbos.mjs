// Durable runs (minagent/dbos, docs/durable.md): what checkpointing every model call and tool call in Postgres
// costs per step over the same run in memory, and how long a restarted worker takes to resume a run it lost.
//   npm run bench:dbos                      (builds dist/ first)
//   MINAGENT_DIST=<compiled src/> node bench/dbos.mjs
// Postgres: a throwaway cluster on 127.0.0.1 (test/helpers/postgres.mjs), fsync on like a real server, unless
// FSYNC=off. RUNS=<n> measured runs per figure (default 7), STEPS=<n> model calls per run (default 20).
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DBOS, DBOSClient } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { createScriptedAgent, createTablesSql } from "../test/dbos/fixtures/scripted-agent.mjs";
import { databaseUrl, startPostgres } from "../test/helpers/postgres.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = resolve(process.env.MINAGENT_DIST ?? join(root, "dist"));
const runs = Number(process.env.RUNS ?? 7);
const steps = Number(process.env.STEPS ?? 20);
const minagent = await import(pathToFileURL(join(dist, "index.js")).href);
const { enqueueDurableRun, registerDurableAgent } = await import(pathToFileURL(join(dist, "dbos", "index.js")).href);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const milliseconds = (value) => `${value.toFixed(2)} ms`;

const server = await startPostgres({ durable: process.env.FSYNC !== "off" });
try {
  const url = databaseUrl(server.url, "minagent_bench");
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query("CREATE DATABASE minagent_bench");
  await admin.end();
  const db = new pg.Pool({ connectionString: url, max: 2 });
  await db.query(createTablesSql);

  // 1. Per-step overhead, in this process: the scripted agent (no delays, no recording) in memory and durably.
  const inMemory = createScriptedAgent(minagent, { steps });
  const durable = registerDurableAgent(createScriptedAgent(minagent, { steps }), { name: "bench" });
  DBOS.setConfig({ name: "minagent-bench", systemDatabaseUrl: url, logLevel: "error", executorID: "bench", applicationVersion: "bench" });
  await DBOS.launch();
  const reference = await inMemory.run("task bench 1");
  const stepCount = reference.messages.filter((message) => message.role !== "system" && message.role !== "user").length;
  const memoryTimes = [];
  const durableTimes = [];
  for (let run = -2; run < runs; run++) {
    let started = performance.now();
    await inMemory.run(`task bench ${run}`);
    const memoryMs = performance.now() - started;
    started = performance.now();
    const result = await durable.run(`task bench ${run}`, { workflowId: `overhead-${run}` });
    const durableMs = performance.now() - started;
    if (result.turns !== steps) throw new Error(`a durable run ended after ${result.turns} turns`);
    if (run >= 0) {
      memoryTimes.push(memoryMs);
      durableTimes.push(durableMs);
    }
  }
  await DBOS.shutdown();
  const perStep = (median(durableTimes) - median(memoryTimes)) / stepCount;
  console.log(`per-step overhead (${steps} model calls + ${stepCount - steps} tool calls = ${stepCount} checkpoints, median of ${runs})`);
  console.log(`  in memory:  ${milliseconds(median(memoryTimes))} per run`);
  console.log(`  durable:    ${milliseconds(median(durableTimes))} per run`);
  console.log(`  overhead:   ${milliseconds(perStep)} per checkpointed step`);

  // 2. Restart to continuing: a worker hangs in the model call of turn 10 and is SIGKILLed; a new worker process
  // (same executor id) is spawned; measured until that model call runs again in it.
  const client = await DBOSClient.create({ systemDatabaseUrl: url });
  const worker = join(root, "test", "dbos", "fixtures", "worker.mjs");
  const startWorker = (env) => {
    const child = spawn(process.execPath, [worker], {
      env: {
        ...process.env,
        NODE_NO_WARNINGS: "1",
        MINAGENT_COMPILED: dist,
        DBOS_SYSTEM_DATABASE_URL: url,
        EXECUTOR_ID: "bench-worker",
        QUEUE_NAME: "bench",
        STEPS: String(steps),
        ...env,
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    const ready = new Promise((resolveReady) =>
      child.stdout.on("data", (data) => {
        output += data;
        if (/^ready$/m.test(output)) resolveReady(performance.now());
      }),
    );
    return { child, ready, exited: new Promise((resolveExit) => child.once("exit", resolveExit)) };
  };
  const until = async (sql, params) => {
    for (;;) {
      const { rows } = await db.query(sql, params);
      if (rows.length > 0) return performance.now();
      await new Promise((resolveWait) => setTimeout(resolveWait, 2));
    }
  };
  const launches = [];
  const continuing = [];
  for (let run = 0; run < Math.min(runs, 5); run++) {
    const key = `r${run}`;
    const hung = startWorker({ HANG: `${key}:model:10` });
    await hung.ready;
    const handle = await enqueueDurableRun(
      client,
      { agentName: "scripted", queueName: "bench", workflowId: `restart-${run}` },
      `task ${key} 1`,
    );
    await until("SELECT 1 FROM hangs WHERE point = $1", [`${key}:model:10`]);
    hung.child.kill("SIGKILL");
    await hung.exited;
    const restartedAt = performance.now();
    const next = startWorker({});
    const readyAt = await next.ready;
    const continuedAt = await until("SELECT 1 FROM model_calls WHERE key = $1 AND turn = 10 AND pid = $2", [key, next.child.pid]);
    await handle.getResult({ pollingIntervalMs: 50 });
    next.child.kill("SIGKILL");
    await next.exited;
    launches.push(readyAt - restartedAt);
    continuing.push(continuedAt - restartedAt);
  }
  await client.destroy();
  await db.end();
  console.log(`restart to a recovered run continuing (turn 10 of ${steps}, median of ${launches.length})`);
  console.log(`  process start to DBOS launched: ${milliseconds(median(launches))}`);
  console.log(`  process start to the lost model call running again: ${milliseconds(median(continuing))}`);
  console.log(`Postgres ${process.env.FSYNC === "off" ? "with fsync off" : "with fsync on"}; Node ${process.version}`);
} finally {
  server.stop();
}
