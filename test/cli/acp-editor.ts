import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { builtBin } from "./built-bin.js";

// A stand-in editor for `minagent acp`: the ACP SDK's client side over the built bin's stdio, in a child process.
// It keeps its own buffers (an unsaved edit is a buffer that differs from the disk), records every update and
// permission request, and answers permission requests as the test says.

/** How the stand-in editor answers a permission request: an option's id, or `cancelled`. */
export type PermissionAnswer = (request: acp.RequestPermissionRequest) => string | "cancelled" | Promise<string | "cancelled">;

/** What the stand-in editor advertises and does. */
export type EditorOptions = {
  /** Environment of `minagent acp` (PATH and NO_COLOR are added). */
  env: Record<string, string>;
  /** More arguments after `acp`. */
  args?: readonly string[];
  /** Advertise fs.readTextFile and fs.writeTextFile (default true). */
  fileSystem?: boolean;
  /** The answer to each permission request (default: reject). */
  answerPermission?: PermissionAnswer;
};

/** A stand-in editor connected to a running `minagent acp`. */
export type StandInEditor = {
  agent: acp.ClientContext;
  child: ChildProcess;
  /** Every `session/update` received, in order. */
  updates: acp.SessionNotification[];
  /** Every permission request received, in order. */
  permissionRequests: acp.RequestPermissionRequest[];
  /** The editor's unsaved buffers by absolute path: fs/read_text_file answers from here before the disk. */
  buffers: Map<string, string>;
  /** Every fs/* request received: ["read" | "write", path]. */
  fileRequests: [string, string][];
  /** What the agent wrote on stderr so far. */
  stderr(): string;
  /** `initialize` with this editor's capabilities. */
  initialize(): Promise<acp.InitializeResponse>;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Closes stdin (the editor goes away) and kills the process if it outlives the test. */
  close(): Promise<void>;
};

/** Starts `minagent acp` and connects the stand-in editor to it. */
export function startEditor(options: EditorOptions): StandInEditor {
  if (!existsSync(builtBin)) throw new Error("dist/ is missing: npm test builds it first (or run npm run build)");
  const child = spawn(process.execPath, [builtBin, "acp", ...(options.args ?? [])], {
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const updates: acp.SessionNotification[] = [];
  const permissionRequests: acp.RequestPermissionRequest[] = [];
  const buffers = new Map<string, string>();
  const fileRequests: [string, string][] = [];
  const fileSystem = options.fileSystem ?? true;
  const app = acp
    .client({ name: "stand-in editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", async ({ params }) => {
      permissionRequests.push(params);
      const answer = options.answerPermission ? await options.answerPermission(params) : "reject_once";
      return answer === "cancelled" ? { outcome: { outcome: "cancelled" } } : { outcome: { outcome: "selected", optionId: answer } };
    })
    .onRequest("fs/read_text_file", async ({ params }) => {
      fileRequests.push(["read", params.path]);
      return { content: buffers.get(params.path) ?? (await readFile(params.path, "utf8")) };
    })
    .onRequest("fs/write_text_file", async ({ params }) => {
      fileRequests.push(["write", params.path]);
      // As an editor does: the buffer takes the text and is saved.
      buffers.set(params.path, params.content);
      await writeFile(params.path, params.content);
      return {};
    });
  const connection = app.connect(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
    ),
  );
  return {
    agent: connection.agent,
    child,
    updates,
    permissionRequests,
    buffers,
    fileRequests,
    stderr: () => stderr,
    exited,
    initialize: () =>
      connection.agent.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: fileSystem ? { fs: { readTextFile: true, writeTextFile: true } } : {},
        clientInfo: { name: "stand-in editor", version: "1.0.0" },
      }),
    close: async () => {
      child.stdin?.end();
      const timer = setTimeout(() => child.exitCode === null && child.pid !== undefined && process.kill(child.pid, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
      connection.close();
    },
  };
}

/** The updates of one kind, for one session. */
export function updatesOf<Kind extends acp.SessionUpdate["sessionUpdate"]>(
  editor: StandInEditor,
  kind: Kind,
  sessionId?: string,
): Extract<acp.SessionUpdate, { sessionUpdate: Kind }>[] {
  return editor.updates
    .filter((notification) => sessionId === undefined || notification.sessionId === sessionId)
    .map((notification) => notification.update)
    .filter((update): update is Extract<acp.SessionUpdate, { sessionUpdate: Kind }> => update.sessionUpdate === kind);
}

/** The text of the agent's message chunks, joined. */
export function agentText(editor: StandInEditor, sessionId?: string): string {
  return updatesOf(editor, "agent_message_chunk", sessionId)
    .map((update) => (update.content.type === "text" ? update.content.text : ""))
    .join("");
}

/** The statuses one tool call went through, in order (its tool_call, then each update that set one). */
export function statusesOf(editor: StandInEditor, toolCallId: string): string[] {
  const statuses: string[] = [];
  for (const { update } of editor.updates) {
    if (
      (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") &&
      update.toolCallId === toolCallId &&
      update.status
    )
      statuses.push(update.status);
  }
  return statuses;
}
