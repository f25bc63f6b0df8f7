// npm run bench:sandbox (issue 20) — what the OS sandbox adds, measured side by side in one run:
//   1. Bash: the same Bash tool calls (createBashTool) unconfined, in a sandbox without network domains and in one with
//      network.allowedDomains (the proxy and socat bridges running), interleaved call by call after a warm-up; median
//      and p90 per call, the added ms and the ratio; the issue's aim is ≤ 15 ms added per call (median). Separately,
//      the once-per-session cost: a fresh sandbox's first call, which starts the session's network namespace.
//   2. The proxy (startNetworkProxy on a Unix socket) against a direct request to a local HTTP server: absolute-form
//      requests and CONNECT tunnels, interleaved, median and p90, the added latency per request; and end to end from
//      inside the sandbox (curl through the loopback forward and through the proxy) beside unconfined curl.
// Everything listens on 127.0.0.1 or Unix sockets in a temporary folder, which is removed; at exit the run checks
// that no bwrap, socat or other child of its own is left. MINAGENT_ROOT=<dir> measures another build than dist/;
// RUNS=<n> calls per arm (default 40), SESSIONS=<n> fresh sandboxes per variant (default 5), REQUESTS=<n> (default 300).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { availableParallelism, homedir, loadavg, release, tmpdir } from "node:os";
import { join } from "node:path";
import { minagentRoot, minagentUrl } from "./minagent-root.mjs";

const runs = Number(process.env.RUNS ?? 40);
const sessions = Number(process.env.SESSIONS ?? 5);
const requests = Number(process.env.REQUESTS ?? 300);
const warmup = 5;
const aimMs = 15;

// Every temporary folder of the run, the sandboxes' own included (createSandbox makes its session folder in
// os.tmpdir()), under one folder: removed at the end, and named in the cleanup check.
const base = realpathSync(mkdtempSync(join(tmpdir(), "minagent-bench-sandbox-")));
process.env.TMPDIR = base;

const { createSandbox } = await import(minagentUrl("dist/code/sandbox/create-sandbox.js"));
const { readSandboxSettings } = await import(minagentUrl("dist/code/sandbox/sandbox-settings.js"));
const { startNetworkProxy } = await import(minagentUrl("dist/code/sandbox/network-proxy.js"));
const { createBashTool } = await import(minagentUrl("dist/code/tools/bash.js"));
const { Workspace } = await import(minagentUrl("dist/code/workspace.js"));

const sorted = (values) => [...values].sort((a, b) => a - b);
const median = (values) => {
  const s = sorted(values);
  const middle = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[middle] : (s[middle - 1] + s[middle]) / 2;
};
const p90 = (values) => sorted(values)[Math.max(0, Math.ceil(values.length * 0.9) - 1)];
const ms = (value, digits = 1) => value.toFixed(digits);
const signed = (value, digits = 1) => `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`;
const firstLine = (text) => text.split("\n")[0] ?? "";
const version = (file, args) => {
  try {
    return firstLine(execFileSync(file, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim());
  } catch {
    return "not found";
  }
};

function socatVersion() {
  try {
    return /socat version (\S+)/.exec(execFileSync("socat", ["-V"], { encoding: "utf8" }))?.[1] ?? "?";
  } catch {
    return "not found";
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Child processes: the sandbox's bwrap (and the socat and sleep inside it) are children of this process. They are
// recorded while the sandboxes run and checked at the end (with their start times, so a reused pid is not mistaken).

function processTable() {
  const table = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      table.set(Number(name), {
        pid: Number(name),
        comm: stat.slice(stat.indexOf("(") + 1, close),
        state: fields[0],
        ppid: Number(fields[1]),
        start: fields[19],
        cmdline,
      });
    } catch {
      // ended meanwhile
    }
  }
  return table;
}

function descendantsOf(pid) {
  const table = processTable();
  const found = [];
  const walk = (parent) => {
    for (const entry of table.values())
      if (entry.ppid === parent) {
        found.push(entry);
        walk(entry.pid);
      }
  };
  walk(pid);
  return found;
}

const seen = new Map();
const noteChildren = () => {
  for (const entry of descendantsOf(process.pid)) seen.set(`${entry.pid}:${entry.start}`, entry);
};

/**
 * What is left of the sandbox processes seen, of this process's children, and of any socat or bwrap naming this run's
 * folder (the bridges name the proxy's socket there): `running`, and `zombies` — ended, waiting for their parent to
 * reap them (the namespace's inner bwrap, once its parent is killed, is reparented to the machine's init).
 */
function leftovers() {
  const table = processTable();
  const found = new Map();
  for (const entry of seen.values()) {
    const now = table.get(entry.pid);
    if (now?.start === entry.start) found.set(now.pid, now);
  }
  for (const entry of descendantsOf(process.pid)) found.set(entry.pid, entry);
  for (const entry of table.values())
    if (/^(socat|bwrap|nsenter)$/.test(entry.comm) && entry.cmdline.includes(base)) found.set(entry.pid, entry);
  const all = [...found.values()];
  return { running: all.filter((entry) => entry.state !== "Z"), zombies: all.filter((entry) => entry.state === "Z") };
}

// ---------------------------------------------------------------------------------------------------------------
// The workspace (a small git repository), the local HTTP server, the sandboxes and the Bash tools.

const root = join(base, "workspace");
mkdirSync(join(root, "src"), { recursive: true });
for (let i = 0; i < 20; i += 1) writeFileSync(join(root, "src", `file${i}.txt`), `line ${i}\n`.repeat(50));
writeFileSync(join(root, "README.md"), "# bench\n");
const git = (...args) =>
  execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", ...args], { cwd: root, stdio: "ignore" });
git("init", "-q");
git("add", ".");
git("commit", "-q", "-m", "bench workspace");
writeFileSync(join(root, "src", "file0.txt"), "changed\n");

let served = 0;
const server = createServer((request, response) => {
  served += 1;
  request.resume();
  response.end("ok\n");
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = server.address().port;
const target = `127.0.0.1:${port}`;

const home = homedir();
const workspace = new Workspace({ root });
const context = { signal: new AbortController().signal, toolCallId: "bench" };

async function newSandbox(settings) {
  return createSandbox({
    settings: await readSandboxSettings([], { root, home }, settings),
    directories: workspace.directories,
    home,
    userDirectory: join(home, ".minagent"),
  });
}
const variants = {
  off: { label: "sandbox, no network domains", settings: {} },
  net: {
    label: `sandbox, allowedDomains ["${target}", "example.com"]`,
    settings: { network: { allowedDomains: [target, "example.com"] } },
  },
};

const open = []; // sandboxes to close whatever happens
const say = (line = "") => console.log(line);

let exitCode = 0;
try {
  const python = spawnSync("bash", ["-c", "command -v python3"], { encoding: "utf8" }).stdout.trim();
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: minagentRoot, encoding: "utf8" }).stdout.trim();
  say(`minagent sandbox bench — build: ${join(minagentRoot, "dist")}${commit ? ` (HEAD ${commit})` : ""}`);
  say(
    `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; nproc ${availableParallelism()}, node ${process.version}, Linux ${release()}, ` +
      `${version("bwrap", ["--version"])}, socat ${socatVersion()}, ` +
      `${version("curl", ["--version"]).split(" ").slice(0, 2).join(" ")}, uid ${process.getuid?.()}, load average ${loadavg()
        .map((value) => value.toFixed(2))
        .join(" ")}`,
  );
  say();

  // -------------------------------------------------------------------------------------------------------------
  // 1a. Once per session: a fresh sandbox, its first call (which starts the network namespace, and with domains the
  //     proxy and socat bridges), then more calls; the two variants alternate session by session.
  const session = { off: { create: [], first: [], after: [], close: [] }, net: { create: [], first: [], after: [], close: [] } };
  for (let round = 0; round < sessions + 1; round += 1) {
    for (const key of round % 2 === 0 ? ["off", "net"] : ["net", "off"]) {
      let started = performance.now();
      const sandbox = await newSandbox(variants[key].settings);
      open.push(sandbox);
      const created = performance.now() - started;
      if (!sandbox.status.enabled) throw new Error(`the sandbox cannot run here: ${sandbox.status.problem}`);
      const bash = createBashTool(workspace, { sandbox });
      started = performance.now();
      const result = await bash.execute({ command: "true" }, context);
      const first = performance.now() - started;
      if (!result.includes("Exit code: 0")) throw new Error(`the first sandboxed call failed: ${result}`);
      noteChildren();
      const after = [];
      for (let call = 0; call < 3; call += 1) {
        started = performance.now();
        await bash.execute({ command: "true" }, context);
        after.push(performance.now() - started);
      }
      started = performance.now();
      await sandbox.close();
      open.splice(open.indexOf(sandbox), 1);
      const closed = performance.now() - started;
      if (round === 0) continue; // the first round warms the module and disk caches
      session[key].create.push(created);
      session[key].first.push(first);
      session[key].after.push(median(after));
      session[key].close.push(closed);
    }
  }

  // 1b. Per call: one tool unconfined and one in each sandbox, each command run by the three in turn (the order
  //     rotating round by round), after warm-up rounds that also start both sandboxes' namespaces.
  const sandboxes = { off: await newSandbox(variants.off.settings), net: await newSandbox(variants.net.settings) };
  open.push(sandboxes.off, sandboxes.net);
  const tools = {
    plain: createBashTool(workspace),
    off: createBashTool(workspace, { sandbox: sandboxes.off }),
    net: createBashTool(workspace, { sandbox: sandboxes.net }),
  };
  const namespace = (text) => /net:\[\d+\]/.exec(text)?.[0];
  const hostNet = namespace(await tools.plain.execute({ command: "readlink /proc/self/ns/net" }, context));
  for (const key of ["off", "net"]) {
    const inside = namespace(await tools[key].execute({ command: "readlink /proc/self/ns/net" }, context));
    if (!inside || inside === hostNet) throw new Error(`the ${key} sandbox's command ran in the host's network namespace (${inside})`);
  }
  noteChildren();
  const commands = [
    { command: "true", check: (out) => out.includes("Exit code: 0") },
    { command: "echo hi > f && cat f", check: (out) => out.startsWith("hi\n") && out.includes("Exit code: 0") },
    { command: "git status --short", check: (out) => out.includes("src/file0.txt") && out.includes("Exit code: 0") },
    { command: "python3 -c pass", check: (out) => out.includes("Exit code: 0") },
    { command: "/usr/bin/python3 -c pass", check: (out) => out.includes("Exit code: 0") },
  ];
  const arms = ["plain", "off", "net"];
  const times = new Map(commands.map(({ command }) => [command, { plain: [], off: [], net: [] }]));
  let failures = 0;
  for (let round = -warmup; round < runs; round += 1) {
    for (const { command, check } of commands) {
      const order = arms.map((_, index) => arms[(index + round + warmup) % arms.length]);
      for (const arm of order) {
        const started = performance.now();
        const out = await tools[arm].execute({ command }, context);
        const elapsed = performance.now() - started;
        if (!check(out)) {
          failures += 1;
          if (failures <= 3) console.error(`check failed (${arm}, ${command}): ${JSON.stringify(out.slice(0, 300))}`);
        }
        if (round >= 0) times.get(command)[arm].push(elapsed);
      }
    }
  }
  rmSync(join(root, "f"), { force: true });
  noteChildren();

  say(
    `## 1. Bash per call (ms; ${runs} calls per arm, interleaved unconfined / no network / with network, after ${warmup} warm-up rounds)`,
  );
  say();
  say(
    "| command | unconfined median (p90) | sandbox, no network: median (p90) | added | ratio | sandbox + allowedDomains: median (p90) | added | ratio |",
  );
  say("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const added = { off: [], net: [] };
  for (const { command } of commands) {
    const t = times.get(command);
    const cells = [`\`${command}\``, `${ms(median(t.plain))} (${ms(p90(t.plain))})`];
    for (const key of ["off", "net"]) {
      const extra = median(t[key]) - median(t.plain);
      added[key].push(extra);
      cells.push(`${ms(median(t[key]))} (${ms(p90(t[key]))})`, signed(extra), `${(median(t[key]) / median(t.plain)).toFixed(2)}×`);
    }
    say(`| ${cells.join(" | ")} |`);
  }
  say();
  for (const key of ["off", "net"]) {
    const over = commands.filter((_, index) => added[key][index] > aimMs).map(({ command }) => `\`${command}\``);
    say(
      `${variants[key].label}: median added per call ${added[key].map((value) => signed(value)).join(", ")} ms — ` +
        (over.length === 0 ? `every command within the ${aimMs} ms aim.` : `OVER the ${aimMs} ms aim for ${over.join(", ")}.`),
    );
  }
  say(
    `(\`python3\` on PATH is ${python}${python.includes("/shims/") ? ", a shim that runs bash and its version manager before the interpreter" : ""}; "added" is the difference of the medians; every output was checked: ${failures === 0 ? "all ok" : `${failures} FAILED`}.)`,
  );
  if (failures > 0) exitCode = 1;
  say();

  say(`## Once per session (ms; median of ${sessions} fresh sandboxes per variant, alternating)`);
  say();
  say("| variant | createSandbox | first call (`true`) | later calls | start cost (first − later) | close() |");
  say("| --- | ---: | ---: | ---: | ---: | ---: |");
  const startCost = {};
  for (const key of ["off", "net"]) {
    const s = session[key];
    startCost[key] = median(s.first) - median(s.after);
    say(
      `| ${variants[key].label} | ${ms(median(s.create))} | ${ms(median(s.first))} (p90 ${ms(p90(s.first))}) | ${ms(median(s.after))} | ${ms(startCost[key])} | ${ms(median(s.close))} |`,
    );
  }
  say();

  // -------------------------------------------------------------------------------------------------------------
  // 2. The proxy: a direct request, an absolute-form request through the proxy's Unix socket, and a CONNECT tunnel
  //    through it followed by the same request; each on a new connection (as a new process makes one), interleaved.
  const socketPath = join(base, "proxy.sock");
  const proxy = await startNetworkProxy({ socketPath, allowedDomains: [target] });
  const readBody = (response) =>
    new Promise((resolve, reject) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode, body }));
      response.on("error", reject);
    });
  const direct = () =>
    new Promise((resolve, reject) => {
      const request = httpRequest({ host: "127.0.0.1", port, path: "/x", agent: false }, (response) =>
        readBody(response).then(resolve, reject),
      );
      request.on("error", reject);
      request.end();
    });
  const absolute = () =>
    new Promise((resolve, reject) => {
      const request = httpRequest({ socketPath, path: `http://${target}/x`, headers: { host: target }, agent: false }, (response) =>
        readBody(response).then(resolve, reject),
      );
      request.on("error", reject);
      request.end();
    });
  const tunnel = () =>
    new Promise((resolve, reject) => {
      const connect = httpRequest({ socketPath, method: "CONNECT", path: target, headers: { host: target }, agent: false });
      connect.on("error", reject);
      connect.on("connect", (answer, socket) => {
        if (answer.statusCode !== 200) {
          socket.destroy();
          return reject(new Error(`CONNECT answered ${answer.statusCode}`));
        }
        const request = httpRequest(
          { createConnection: () => socket, path: "/x", headers: { host: target, connection: "close" } },
          (response) =>
            readBody(response).then((result) => {
              socket.destroy();
              resolve(result);
            }, reject),
        );
        request.on("error", reject);
        request.end();
      });
      connect.end();
    });
  const kinds = { direct, absolute, tunnel };
  const latency = { direct: [], absolute: [], tunnel: [] };
  const before = served;
  let bad = 0;
  for (let round = -30; round < requests; round += 1) {
    const names = Object.keys(kinds);
    for (let index = 0; index < names.length; index += 1) {
      const name = names[(index + round + 30) % names.length];
      const started = performance.now();
      const result = await kinds[name]();
      const elapsed = performance.now() - started;
      if (result.status !== 200 || result.body !== "ok\n") bad += 1;
      if (round >= 0) latency[name].push(elapsed);
    }
  }
  const expected = (requests + 30) * 3;
  await proxy.close();

  // End to end from inside the sandbox (with domains): curl through the socat forward of the allowed host-loopback
  // port (a CONNECT tunnel made by socat) and through the proxy (absolute-form), beside unconfined curl direct.
  const curl = {
    unconfined: { tool: tools.plain, command: `curl -sS http://${target}/x` },
    forward: { tool: tools.net, command: `curl -sS http://${target}/x` },
    proxied: { tool: tools.net, command: `curl -sS -x "$HTTP_PROXY" --noproxy '' http://${target}/x` },
  };
  const curlTimes = { unconfined: [], forward: [], proxied: [] };
  let curlBad = 0;
  for (let round = -warmup; round < runs; round += 1) {
    const names = Object.keys(curl);
    for (let index = 0; index < names.length; index += 1) {
      const name = names[(index + round + warmup) % names.length];
      const started = performance.now();
      const out = await curl[name].tool.execute({ command: curl[name].command }, context);
      const elapsed = performance.now() - started;
      if (!out.startsWith("ok\n") || !out.includes("Exit code: 0")) {
        curlBad += 1;
        if (curlBad <= 3) console.error(`curl check failed (${name}): ${JSON.stringify(out.slice(0, 300))}`);
      }
      if (round >= 0) curlTimes[name].push(elapsed);
    }
  }
  noteChildren();

  say(`## 2. The network proxy (ms per request to a local HTTP server; ${requests} of each, interleaved, new connection each)`);
  say();
  say("| path | median | p90 | added (median) | ratio |");
  say("| --- | ---: | ---: | ---: | ---: |");
  const rows = [
    ["direct (Node → 127.0.0.1)", latency.direct, latency.direct],
    ["proxy, absolute-form GET (Unix socket)", latency.absolute, latency.direct],
    ["proxy, CONNECT then GET in the tunnel", latency.tunnel, latency.direct],
    ["curl, unconfined, direct (Bash call)", curlTimes.unconfined, curlTimes.unconfined],
    ["curl in the sandbox via the loopback forward (socat → CONNECT)", curlTimes.forward, curlTimes.unconfined],
    ["curl in the sandbox via the proxy (socat bridge → absolute-form)", curlTimes.proxied, curlTimes.unconfined],
  ];
  for (const [name, values, reference] of rows)
    say(
      `| ${name} | ${ms(median(values), 2)} | ${ms(p90(values), 2)} | ${values === reference ? "—" : signed(median(values) - median(reference), 2)} | ${(median(values) / median(reference)).toFixed(2)}× |`,
    );
  say();
  say(
    `Proxy added per request: absolute-form ${signed(median(latency.absolute) - median(latency.direct), 2)} ms, CONNECT ${signed(median(latency.tunnel) - median(latency.direct), 2)} ms. ` +
      `(The curl rows are whole Bash calls, ${runs} of each, process start included. Requests served ${served - before} of ${expected + curlTimes.unconfined.length + curlTimes.forward.length + curlTimes.proxied.length + 3 * warmup}; ` +
      `${bad + curlBad === 0 ? "every answer checked ok" : `${bad + curlBad} answers FAILED`}.)`,
  );
  if (bad + curlBad > 0) exitCode = 1;
  say();
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  for (const sandbox of open.splice(0)) await sandbox.close().catch((error) => console.error(error));
  await new Promise((resolve) => server.close(resolve));
  server.closeAllConnections?.();
  // A killed namespace's processes may take a moment to end.
  let left = leftovers();
  for (let attempt = 0; attempt < 20 && left.running.length > 0; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = leftovers();
  }
  rmSync(base, { recursive: true, force: true });
  const kinds = [...new Set([...seen.values()].map((entry) => entry.comm))].join(", ");
  const describeEntry = (entry) =>
    `${entry.pid} ${entry.comm} (state ${entry.state}, parent ${entry.ppid}): ${entry.cmdline.slice(0, 200)}`;
  if (left.running.length === 0)
    say(
      `Cleanup: sandboxes closed, servers closed, ${base} removed; none of the ${seen.size} sandbox processes seen (${kinds}) is running` +
        (left.zombies.length === 0
          ? "."
          : ` (${left.zombies.length} ended, not yet reaped by their parent: ${[...new Set(left.zombies.map((entry) => `${entry.comm}, parent pid ${entry.ppid}`))].join("; ")}).`),
    );
  else {
    say(`Cleanup: LEFT RUNNING: ${left.running.map(describeEntry).join("; ")}`);
    exitCode = 1;
  }
}
process.exitCode = exitCode;
