// OpenAI's Codex CLI as bench/code-cli.mjs's fourth program: its native binary (`codex exec`, non-interactive) on the
// same task, against the scripted Responses API (code-cli-responses-server.mjs) through a custom model provider in a
// temporary CODEX_HOME's config.toml, offline. Codex has no Read tool: its task is its shell tool twice (`ls`, then
// `cat notes.txt`), then the answer.
//   The binary: CODEX_BIN, else the platform package of an npm install under CODEX_PREFIX (default /tmp/codex):
//   `npm install --prefix /tmp/codex @openai/codex`. As with Claude Code, the native binary is run directly, not the
//   package's Node launcher (which only finds the binary and execs it); the launcher's environment is set by hand.
//
// Nothing may leave the machine, so each run happens in a loopback-only network namespace: `unshare -rn` (a user
// namespace, so no privileges are needed) runs this file again (`--inside`), which brings `lo` up, starts the
// scripted server in the namespace and runs the task there with code-cli-run.mjs's runTask, then prints the run's
// figures as JSON. The timing stays honest: the clock starts when runTask spawns codex (under GNU time) inside the
// namespace and stops at its exit, as for every other program; creating the namespace, the inner Node's start and the
// server's start all happen before. The scripted server's clock and the spawn's are the same process's.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { defaultOpenAIModel, prompt } from "./code-cli-clients.mjs";
import { runTask } from "./code-cli-run.mjs";

const thisFile = fileURLToPath(import.meta.url);
/** How long one run in the namespace may take, all told (runTask kills codex itself after a minute). */
const namespaceLimitMs = 120_000;

/**
 * Codex on `model` (OpenAI's wire), or why it cannot be measured here: not installed, or no loopback-only network
 * namespace can be made. `runTask` runs one measured task inside such a namespace.
 * @returns {import("./code-cli-clients.mjs").Client & { runTask: () => Promise<any> } | { missing: string }}
 */
export function codexClient(model = defaultOpenAIModel) {
  const found = findCodex();
  if ("missing" in found) return found;
  const isolation = process.env.CODEX_BENCH_INSIDE === "1" ? undefined : namespaceProblem();
  if (isolation) return { missing: `Codex ${found.version} is installed, but cannot be run offline: ${isolation}` };
  return {
    name: "Codex",
    version: found.version,
    command: found.bin,
    model,
    wire: "responses",
    args: ({ prompt: text = prompt, extra = [] } = {}) => [
      "exec",
      // The project folder is a plain folder, as for the others; Codex otherwise refuses to run outside a git repository.
      "--skip-git-repo-check",
      // A key config.toml sets that this release does not know is an error, not silently ignored.
      "--strict-config",
      "--color",
      "never",
      ...extra,
      text,
    ],
    env: (base) => base,
    prepare: (workspace, serverUrl) => prepareHome(workspace, serverUrl, model),
    // Without --json, `codex exec` prints the last message alone on stdout (its log goes to stderr).
    finalAnswer: (stdout) => stdout.trim(),
    // $CODEX_HOME/sessions/<yyyy>/<mm>/<dd>/rollout-….jsonl, with CODEX_HOME = $HOME/.codex
    sessionFolder: join(".codex", "sessions"),
    runTask: () => runInNamespace(model),
  };
}

/** The binary and version, or why there is none. */
export function findCodex() {
  if (process.env.CODEX_BIN) {
    const bin = process.env.CODEX_BIN;
    if (!existsSync(bin)) return { missing: `CODEX_BIN=${bin} does not exist` };
    return { bin, version: "(CODEX_BIN)" };
  }
  const prefix = process.env.CODEX_PREFIX ?? "/tmp/codex";
  const modules = join(prefix, "node_modules", "@openai");
  const main = join(modules, "codex", "package.json");
  if (!existsSync(main)) return { missing: `Codex is not installed under ${prefix}: npm install --prefix ${prefix} @openai/codex` };
  const { version } = JSON.parse(readFileSync(main, "utf8"));
  const triple = { "linux-x64": "x86_64-unknown-linux-musl", "linux-arm64": "aarch64-unknown-linux-musl" }[
    `${process.platform}-${process.arch}`
  ];
  if (!triple) return { missing: `this bench runs Codex on Linux (x64, arm64) only, not on ${process.platform}-${process.arch}` };
  const platform = `codex-${process.platform}-${process.arch}`;
  const candidates = [join(modules, platform, "vendor", triple, "bin", "codex"), join(modules, "codex", "vendor", triple, "bin", "codex")];
  const bin = candidates.find((candidate) => existsSync(candidate));
  if (!bin)
    return {
      missing: `@openai/codex ${version} is installed under ${prefix}, but its native binary is not (looked for ${candidates.join(", ")})`,
    };
  return { bin, version, packageRoot: join(modules, "codex") };
}

/** Why no loopback-only network namespace can be made here, or undefined when one can. */
function namespaceProblem() {
  const probe = spawnSync("unshare", ["-rn", "sh", "-c", "ip link set lo up"], { encoding: "utf8", timeout: 10_000 });
  if (probe.error) return `unshare -rn failed: ${probe.error.message}`;
  if (probe.status !== 0)
    return `unshare -rn sh -c 'ip link set lo up' failed (exit ${probe.status}): ${probe.stderr.trim().slice(0, 300)}`;
  return undefined;
}

/**
 * Codex's environment in `home`: CODEX_HOME = $HOME/.codex, and a TMPDIR of its own, so that CODEX_HOME (under /tmp,
 * as every workspace) is not under the temporary directory: Codex refuses to put its helper binaries (the sandbox's
 * launcher among them) there, and without them its sandboxed commands fail ("bwrap: execvp codex-linux-sandbox: No
 * such file or directory"). With a CODEX_HOME in a real home, as a user has, it makes them on every start, so here too.
 * `close` removes the TMPDIR.
 * @param {string} home
 * @returns {{ codexHome: string, env: Record<string, string>, close: () => void }}
 */
export function codexEnv(home) {
  const found = findCodex();
  const codexHome = join(home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), "code-cli-bench-codex-tmp-"));
  return {
    codexHome,
    env: {
      CODEX_HOME: codexHome,
      TMPDIR: scratch,
      // What the npm launcher sets before it execs the binary.
      CODEX_MANAGED_BY_NPM: "1",
      ...("packageRoot" in found ? { CODEX_MANAGED_PACKAGE_ROOT: found.packageRoot } : {}),
    },
    close: () => rmSync(scratch, { recursive: true, force: true }),
  };
}

/** Codex's HOME for one run: its environment (codexEnv) and a config.toml whose provider is the scripted server. */
function prepareHome(workspace, serverUrl, model) {
  const prepared = codexEnv(workspace.home);
  // approval never: nobody is there to approve; read-only sandbox: `ls` and `cat` need no more, and they run under
  // Codex's own sandbox as a user's would. No retries: a failure of the script should show at once. Analytics off,
  // as Claude Code runs with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC (the namespace would drop them anyway).
  const config = [
    `model = ${JSON.stringify(model)}`,
    `model_provider = "bench"`,
    `approval_policy = "never"`,
    `sandbox_mode = "read-only"`,
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[model_providers.bench]",
    `name = "scripted Responses API on 127.0.0.1"`,
    `base_url = ${JSON.stringify(`${serverUrl}/v1`)}`,
    `env_key = "BENCH_OPENAI_API_KEY"`,
    `wire_api = "responses"`,
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
  ].join("\n");
  writeFileSync(join(prepared.codexHome, "config.toml"), config);
  return { env: { ...prepared.env, BENCH_OPENAI_API_KEY: "any" }, close: prepared.close };
}

/** One runTask of Codex in a fresh loopback-only network namespace (see the top of this file); its figures. */
async function runInNamespace(model) {
  const child = spawn(
    "unshare",
    ["-rn", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", process.execPath, thisFile, "--inside", model],
    { env: { ...process.env, CODEX_BENCH_INSIDE: "1" }, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }, namespaceLimitMs);
  const exit = await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve(code));
  });
  clearTimeout(timer);
  if (exit !== 0) throw new Error(stderr.trim().slice(-800) || `the namespace's run ended with exit ${exit}`);
  return JSON.parse(stdout.trim().split("\n").at(-1));
}

// Inside the namespace: one measured run, its figures as one line of JSON on stdout.
if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url && process.argv[2] === "--inside") {
  try {
    const client = codexClient(process.argv[3]);
    if ("missing" in client) throw new Error(client.missing);
    const run = await runTask(client);
    process.stdout.write(`${JSON.stringify(run)}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
