import { isAbsolute, resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { ToolCall } from "../../core/types.js";
import { describeToolCall } from "../code/tool-line.js";

// How a tool call looks in the editor: its title, kind and the files it touches, and what its outcome shows.

type Call = Pick<ToolCall, "name" | "arguments">;

/** ACP's tool kinds by minagent's (and Claude Code's) tool names: the editor picks an icon and groups by them. */
const kinds: Readonly<Record<string, acp.ToolKind>> = {
  Read: "read",
  NotebookRead: "read",
  Write: "edit",
  Edit: "edit",
  MultiEdit: "edit",
  NotebookEdit: "edit",
  Bash: "execute",
  Glob: "search",
  Grep: "search",
  ToolSearch: "search",
  WebFetch: "fetch",
  WebSearch: "fetch",
  TodoWrite: "think",
  Agent: "think",
  Task: "think",
  ExitPlanMode: "switch_mode",
};

/** The kind of a call: Claude Code's tools by name, MCP tools and others `other`. */
export function toolKind(call: Call): acp.ToolKind {
  return kinds[call.name] ?? "other";
}

/** The call as a title: `Read(src/a.ts)`, `Bash(npm test)`, the tool's name for others. */
export function toolTitle(call: Call, root: string): string {
  return describeToolCall(call, root);
}

/** The files a call reads or changes, absolute, for the editor to follow (`Read` with its first line). */
export function toolLocations(call: Call, root: string): acp.ToolCallLocation[] {
  const path = [call.arguments.file_path, call.arguments.notebook_path, call.arguments.path].find(
    (value): value is string => typeof value === "string" && value !== "",
  );
  if (path === undefined) return [];
  const absolute = isAbsolute(path) ? resolve(path) : resolve(root, path);
  const line = call.name === "Read" && typeof call.arguments.offset === "number" ? { line: call.arguments.offset } : {};
  return [{ path: absolute, ...line }];
}

/** A block of text, as tool-call content. */
export function textContent(text: string): acp.ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/** A shell command's output as the editor shows it: fenced, so that it keeps its lines and nothing in it is read as Markdown. */
export function commandOutput(output: string): acp.ToolCallContent {
  const fence = "`".repeat(Math.max(3, ...[...output.matchAll(/`+/g)].map((run) => run[0].length + 1)));
  return textContent(`${fence}console\n${output}\n${fence}`);
}
