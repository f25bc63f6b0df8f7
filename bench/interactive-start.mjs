// Interactive start of `minagent code`: from spawning the process on a terminal (a pty made by util-linux's
// `script`) to the prompt being drawn, beside `node -e 0` on the same terminal. Prints the median of N runs each,
// interleaved, and the machine's load. `node bench/interactive-start.mjs [runs]` after `npm run build`;
// bench/code-cli.mjs prints the same figures through `measureInteractiveStart`.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../dist/cli/bin.js", import.meta.url));

/**
 * Medians over `runs` (interleaved) of `node -e 0` and of `minagent code` to its prompt, both on a pty made by
 * `script`; `{ skipped }` when util-linux's `script` is missing.
 * @returns {Promise<{ nodeMs: number, promptMs: number, runs: number } | { skipped: string }>}
 */
export async function measureInteractiveStart(runs) {
  if (spawnSync("script", ["--version"]).status !== 0) return { skipped: "util-linux `script` is not installed" };
  const workspace = mkdtempSync(join(tmpdir(), "minagent-istart-"));
  const home = mkdtempSync(join(tmpdir(), "minagent-istart-home-"));
  writeFileSync(join(workspace, "a.js"), "export const a = 1;\n");
  try {
    const node = [];
    const minagent = [];
    for (let run = 0; run < runs; run++) {
      node.push(await time(`${process.execPath} -e 0`, "", workspace, home));
      // The prompt: bold ">" and a space, drawn once the session is ready for typing.
      minagent.push(await time(`${process.execPath} ${bin} code --model anthropic:claude-haiku-4-5`, "\x1b[1m>\x1b[22m ", workspace, home));
    }
    return { nodeMs: median(node), promptMs: median(minagent), runs };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** Milliseconds from spawn until `until` shows in what the terminal is sent; the process is then killed by pid. */
function time(command, until, workspace, home) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: workspace,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        MINAGENT_HOME: home,
        TERM: "xterm-256color",
        ANTHROPIC_API_KEY: "sk-ant-bench",
        ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
      },
      stdio: ["pipe", "pipe", "inherit"],
      detached: true,
    });
    let seen = "";
    const timer = setTimeout(() => finish(new Error(`no ${JSON.stringify(until)} after 10 s; the terminal showed:\n${seen}`)), 10_000);
    const finish = (error) => {
      clearTimeout(timer);
      const elapsed = performance.now() - started;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      if (error) reject(error);
      else resolve(elapsed);
    };
    child.stdout.on("data", (chunk) => {
      seen += chunk.toString("utf8");
      if (seen.includes(until)) finish();
    });
    child.on("exit", () => {
      if (until === "") finish();
    });
  });
}

function median(values) {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 7);
  const measured = await measureInteractiveStart(runs);
  if ("skipped" in measured) console.log(`interactive start: skipped (${measured.skipped})`);
  else {
    const [load] = loadavg();
    console.log(`interactive start to the prompt (median of ${runs}, load ${load.toFixed(2)} on ${availableParallelism()} CPUs)`);
    console.log(`  node -e 0 on a pty:        ${measured.nodeMs.toFixed(0)} ms`);
    console.log(
      `  minagent code, prompt:     ${measured.promptMs.toFixed(0)} ms  (${(measured.promptMs / measured.nodeMs).toFixed(1)}× node -e 0; aim ≤ 200 ms on a quiet machine)`,
    );
  }
}
