import { isAbsolute, relative } from "node:path";
import type { ToolCall } from "../../core/types.js";
import { flattenText } from "./interactive/text-width.js";

type Call = Pick<ToolCall, "name" | "arguments">;

/** The argument that says what a call does, by tool: the path, the command, the pattern. */
export function describeToolCall(call: Call, root: string): string {
  const args = call.arguments;
  const text = (name: string) => (typeof args[name] === "string" ? flattenText(args[name] as string) : undefined);
  const path = (name: string) => {
    const value = text(name);
    if (value === undefined || !isAbsolute(value)) return value;
    const inside = relative(root, value);
    return inside === "" ? "." : inside.startsWith("..") || isAbsolute(inside) ? value : inside;
  };
  const within = (value: string | undefined, where: string | undefined) => (where ? `${value ?? ""} in ${where}` : value);
  let key: string | undefined;
  switch (call.name) {
    case "Read": {
      const range =
        typeof args.offset === "number" ? `:${args.offset}${typeof args.limit === "number" ? `-${args.offset + args.limit - 1}` : ""}` : "";
      key = path("file_path") && `${path("file_path")}${range}`;
      break;
    }
    case "Write":
    case "Edit":
      key = path("file_path");
      break;
    case "NotebookEdit": {
      const cell = text("cell_id");
      key = path("notebook_path") && `${path("notebook_path")}${cell ? ` ${args.edit_mode === "insert" ? "after " : ""}${cell}` : ""}`;
      break;
    }
    case "Bash":
      key = text("command");
      break;
    case "Glob":
      key = within(text("pattern"), path("path"));
      break;
    case "Grep":
      key = within(text("pattern") && JSON.stringify(text("pattern")), path("path") ?? text("glob"));
      break;
    case "ExitPlanMode": // the plan is shown in full when it is put to the person
      key = undefined;
      break;
    case "TodoWrite":
      key = Array.isArray(args.todos) ? `${args.todos.length} task${args.todos.length === 1 ? "" : "s"}` : undefined;
      break;
    default:
      key = Object.values(args).find((value): value is string => typeof value === "string");
      key = key === undefined ? undefined : flattenText(key);
  }
  return key === undefined || key === "" ? call.name : `${call.name}(${key})`;
}

/** What came of a call, in a few words: `120 lines`, `exit 1 · 3 lines`, the first line of an error. */
export function summarizeToolResult(call: Call, result: { content: string; isError?: boolean | undefined }): string {
  const content = result.content;
  if (result.isError) return firstLine(content.replace(/^Error:\s*/, ""));
  if (call.name === "Read") {
    const numbered = content.split("\n").filter((line) => /^\s*\d+\t/.test(line)).length;
    const notebook = /^\S.* is a Jupyter notebook \(.*\) with ([\d,]+ cells?)\./.exec(content);
    if (notebook) return notebook[1] as string;
    return numbered > 0 ? `${numbered} line${numbered === 1 ? "" : "s"}` : firstLine(content);
  }
  if (call.name === "Bash") {
    const match = /\n\n(Exit code: (\d+)|Killed by (\S+))(\n[\s\S]*)?$/.exec(content);
    if (!match) return firstLine(content);
    const output = content.slice(0, match.index);
    const lines = output === "(no output)" ? 0 : output.split("\n").length;
    const status = match[2] !== undefined ? `exit ${match[2]}` : `killed by ${match[3]}`;
    return `${status} · ${lines === 0 ? "no output" : `${lines} line${lines === 1 ? "" : "s"} of output`}`;
  }
  if (call.name === "Glob") {
    const files = content.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("(") && !line.startsWith("[")).length;
    return /^no files/i.test(content) ? firstLine(content) : `${files} file${files === 1 ? "" : "s"}`;
  }
  if (call.name === "WebSearch" && content.startsWith("Web search results for query:")) {
    // The numbered list before the summary, which may hold numbered lines of its own.
    const list = content.split("\n\nSummary:\n")[0] ?? "";
    const results = list.split("\n").filter((line) => /^\d+\. /.test(line)).length;
    return `${results} result${results === 1 ? "" : "s"}`;
  }
  // "Edited src/a.ts: replaced 1 occurrence (line 2). It now reads: …": the first sentence says it.
  if (call.name === "Edit" || call.name === "Write") return firstLine(content).replace(/(\.)\s.*$/, "$1");
  return firstLine(content);
}

function firstLine(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "") ?? "";
  return flattenText(line);
}
