// The programs bench/code-cli.mjs drives, each in a temporary project folder with a temporary HOME (so that each
// writes its session files there and reads no settings of the machine), against the scripted server of its wire
// (Codex, the fourth, is in code-cli-codex.mjs):
//   minagent code -p …  (MINAGENT_ROOT's dist/, else this repository's: see minagent-root.mjs), on Anthropic's wire
//   (anthropic:<model>, ANTHROPIC_BASE_URL) or on OpenAI's Responses wire (openai:<model>, OPENAI_BASE_URL)
//   Claude Code's native binary: CLAUDE_CODE_BIN, else found in an npm install under CLAUDE_CODE_PREFIX (default
//   /tmp/cc): `npm install --prefix /tmp/cc @anthropic-ai/claude-code@latest` (without @latest, npm on Node 20 picks
//   the newest release whose engines allow Node 20, an older one). The binary is the platform package's, which is
//   there even when the package's install script was skipped.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { minagentRoot } from "./minagent-root.mjs";

export const prompt = "List the files here with ls, then read notes.txt and tell me what it says.";
/** minagent's model when neither --model nor Claude Code's own choice says another. */
export const defaultModel = "claude-sonnet-4-6";
/** The model on OpenAI's wire (minagent and Codex): a GPT-5-class id that Codex's model catalog knows. */
export const defaultOpenAIModel = "gpt-5.5";

/**
 * @typedef {{ name: string, version: string, command: string, model: string | undefined,
 *   wire?: "anthropic" | "responses",
 *   args: (options?: { prompt?: string, extra?: string[] }) => string[],
 *   env: (base: Record<string, string>) => Record<string, string>, sessionFolder: string,
 *   prepare?: (workspace: { project: string, home: string }, serverUrl: string) => { env?: Record<string, string>, close?: () => void },
 *   finalAnswer?: (stdout: string) => string | undefined }} Client
 */

/**
 * minagent code -p on `model`: through Anthropic's Messages API, or with `wire: "responses"` through OpenAI's
 * Responses API (the same Bash and Read tools either way).
 * @param {string} [model]
 * @param {{ wire?: "anthropic" | "responses" }} [options]
 * @returns {Client}
 */
export function minagentClient(model = defaultModel, { wire = "anthropic" } = {}) {
  const bin = join(minagentRoot, "dist", "cli", "bin.js");
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build first (npm run build), or set MINAGENT_ROOT`);
  const { version } = JSON.parse(readFileSync(join(minagentRoot, "package.json"), "utf8"));
  return {
    name: wire === "responses" ? "minagent code -p (Responses)" : "minagent code -p",
    version,
    command: process.execPath,
    model,
    wire,
    args: ({ prompt: text = prompt, extra = [] } = {}) => [
      // BENCH_NODE_ARGS goes to minagent's Node: "--cpu-prof --cpu-prof-dir=/tmp/prof" shows where its time goes.
      ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
      bin,
      "code",
      "-p",
      text,
      "--model",
      `${wire === "responses" ? "openai" : "anthropic"}:${model}`,
      "--allowedTools",
      "Bash(ls)",
      "--output-format",
      "json",
      ...extra,
    ],
    env: (base) => base,
    // $HOME/.minagent/projects/<folder>/<id>.jsonl
    sessionFolder: join(".minagent", "projects"),
  };
}

/** Claude Code on `model`, or on its own default model without one. @returns {Client | { missing: string }} */
export function claudeCodeClient(model = undefined) {
  const found = findClaudeCode();
  if ("missing" in found) return found;
  return {
    name: "Claude Code",
    version: found.version,
    command: found.bin,
    model,
    wire: "anthropic",
    args: ({ prompt: text = prompt, extra = [] } = {}) => [
      "-p",
      text,
      ...(model === undefined ? [] : ["--model", model]),
      "--allowedTools",
      "Bash(ls)",
      "Read",
      "--output-format",
      "json",
      ...extra,
    ],
    env: (base) => ({ ...base, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" }),
    // $HOME/.claude/projects/<folder>/<id>.jsonl
    sessionFolder: join(".claude", "projects"),
  };
}

function findClaudeCode() {
  if (process.env.CLAUDE_CODE_BIN) {
    const bin = process.env.CLAUDE_CODE_BIN;
    if (!existsSync(bin)) return { missing: `CLAUDE_CODE_BIN=${bin} does not exist` };
    return { bin, version: "(CLAUDE_CODE_BIN)" };
  }
  const prefix = process.env.CLAUDE_CODE_PREFIX ?? "/tmp/cc";
  const modules = join(prefix, "node_modules", "@anthropic-ai");
  const main = join(modules, "claude-code");
  if (!existsSync(join(main, "package.json")))
    return { missing: `Claude Code is not installed under ${prefix}: npm install --prefix ${prefix} @anthropic-ai/claude-code@latest` };
  const { version } = JSON.parse(readFileSync(join(main, "package.json"), "utf8"));
  const musl = process.platform === "linux" && !existsSync("/lib64/ld-linux-x86-64.so.2") && !existsSync("/lib/ld-linux-aarch64.so.1");
  const platform = `claude-code-${process.platform}-${process.arch}${musl ? "-musl" : ""}`;
  const binary = process.platform === "win32" ? "claude.exe" : "claude";
  const candidates = [
    join(modules, platform, binary),
    join(main, "node_modules", "@anthropic-ai", platform, binary),
    // What the install script puts in place of the package's stub, when it ran.
    join(main, "bin", "claude.exe"),
  ];
  // The package's own bin/claude.exe is a small stub until the install script replaces it.
  const bin = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).size > 1_000_000);
  if (!bin)
    return {
      missing: `@anthropic-ai/claude-code ${version} is installed under ${prefix}, but no native binary was found (looked for ${candidates.join(", ")}); its platform package @anthropic-ai/${platform} may be missing`,
    };
  return { bin, version };
}
