import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { defaultDataDirectory } from "../../code/sessions/json-lines-session-store.js";
import { UsageError } from "../../errors.js";
import type { ResolvedMcpServer } from "../../mcp/config.js";
import { toOneLine } from "../../text.js";
import { createCodeSessionStore } from "../code/code-session-store.js";
import { openCodeSession } from "../code/open-code-session.js";
import type { CodeOptions } from "../code/session-context.js";
import type { CliIo } from "../io.js";
import { type EditorConnection, EditorSession } from "./editor-session.js";

/** What {@link serveAcp} serves with. */
export type AcpServerOptions = {
  /** `minagent acp`'s flags: every session starts with them, in the folder the editor names. */
  options: CodeOptions;
  io: CliIo;
  /** minagent's version, for `initialize`'s agentInfo. */
  version: string;
};

/** A running ACP connection: `closed` resolves when the editor has gone (stdin closed) and every session is closed. */
export type AcpServer = {
  /** Resolves as the editor goes (stdin closed): closing the sessions starts then. */
  disconnected: Promise<void>;
  /** Resolves once every session is closed too. */
  closed: Promise<void>;
  close(): Promise<void>;
};

/**
 * The coding agent as an ACP agent on `stream` (newline-delimited JSON-RPC, on the official SDK): `initialize`,
 * `session/new`, `session/load` (the saved conversation replayed first), `session/list`, `session/set_mode`,
 * `session/prompt` and `session/cancel`. Every session is a `minagent code` session — the same settings, tools,
 * permissions, hooks, MCP servers, compaction, subagents and session files — whose questions go to the editor.
 */
export function serveAcp(stream: acp.Stream, server: AcpServerOptions): AcpServer {
  const sessions = new Map<string, EditorSession>();
  let connection: EditorConnection | undefined;
  const note = (line: string) => server.io.stderr(`minagent acp: ${line}\n`);

  const sessionOf = (sessionId: string): EditorSession => {
    const session = sessions.get(sessionId);
    if (!session)
      throw acp.RequestError.invalidParams(
        { sessionId },
        `there is no session ${sessionId} in this minagent acp process: start one with session/new, or load a saved one with session/load`,
      );
    return session;
  };

  /** Loads of one session, one after the other: a second load of it closes the first's session, never leaks it. */
  const loading = new Map<string, Promise<unknown>>();
  const open = async (
    request: { cwd: string; mcpServers: readonly acp.McpServer[]; additionalDirectories?: string[] | undefined },
    sessionId: string | undefined,
  ): Promise<EditorSession> => {
    if (sessionId === undefined) return openNow(request, undefined);
    const opened = (loading.get(sessionId) ?? Promise.resolve()).catch(() => {}).then(() => openNow(request, sessionId));
    loading.set(sessionId, opened);
    try {
      return await opened;
    } finally {
      if (loading.get(sessionId) === opened) loading.delete(sessionId);
    }
  };

  const openNow = async (
    request: { cwd: string; mcpServers: readonly acp.McpServer[]; additionalDirectories?: string[] | undefined },
    sessionId: string | undefined,
  ): Promise<EditorSession> => {
    if (!connection) throw acp.RequestError.invalidRequest(undefined, "call initialize first");
    const cwd = await checkFolder(request.cwd, "cwd");
    const additional = [...server.options.additionalDirectories];
    for (const directory of request.additionalDirectories ?? []) additional.push(await checkFolder(directory, "additionalDirectories"));
    if (sessionId !== undefined) await sessions.get(sessionId)?.close();
    if (sessionId !== undefined) sessions.delete(sessionId);
    const notes: string[] = [];
    try {
      const opened = await openCodeSession({ ...server.options, cwd, additionalDirectories: additional, print: false }, server.io, {
        choose: (store) => (sessionId === undefined ? store.create() : store.open(sessionId)),
        trust: "remembered",
        extraMcpServers: request.mcpServers.map(editorMcpServer),
        note: (line) => {
          note(line);
          notes.push(line);
        },
      });
      const session = await EditorSession.start(opened, connection, notes);
      sessions.set(session.id, session);
      return session;
    } catch (error) {
      if (error instanceof UsageError) throw acp.RequestError.invalidParams(undefined, error.message);
      throw error;
    }
  };

  const app = acp
    .agent({ name: "minagent" })
    .onRequest("initialize", ({ params }) => {
      connection = {
        client: live.client,
        capabilities: params.clientCapabilities ?? {},
        userDirectory: defaultDataDirectory(server.io.env),
      };
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          // Images (pasted, dropped) and embedded files and selections reach the model; audio does not.
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, additionalDirectories: {} },
        },
        agentInfo: { name: "minagent", title: "minagent", version: server.version },
        authMethods: [],
      };
    })
    .onRequest("authenticate", () => ({}))
    .onRequest("session/new", async ({ params }) => {
      const session = await open(params, undefined);
      announceCommandsAfter(session);
      return { sessionId: session.id, modes: session.modes };
    })
    .onRequest("session/load", async ({ params }) => {
      const session = await open(params, params.sessionId);
      await session.replay();
      announceCommandsAfter(session);
      return { modes: session.modes };
    })
    .onRequest("session/list", async ({ params }) => {
      if (!params.cwd) return { sessions: [] };
      const cwd = await checkFolder(params.cwd, "cwd");
      const store = createCodeSessionStore({ cwd, directory: defaultDataDirectory(server.io.env), env: server.io.env });
      const saved = await store.list();
      return {
        sessions: saved.map((summary) => ({
          sessionId: summary.id,
          cwd,
          updatedAt: summary.updatedAt,
          ...(summary.title !== undefined && { title: toOneLine(summary.title, 120) }),
        })),
      };
    })
    .onRequest("session/set_mode", ({ params }) => {
      try {
        sessionOf(params.sessionId).setMode(params.modeId);
      } catch (error) {
        if (error instanceof acp.RequestError) throw error;
        throw acp.RequestError.invalidParams({ modeId: params.modeId }, (error as Error).message);
      }
      return {};
    })
    .onRequest("session/prompt", ({ params }) => sessionOf(params.sessionId).prompt(params.prompt))
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  const live = app.connect(stream);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      const all = [...sessions.values()];
      sessions.clear();
      for (const session of all) session.cancel();
      await Promise.all(all.map((session) => session.close().catch(() => {})));
      live.close();
    })();
    return closing;
  };
  const closed = live.closed.then(close);
  return { disconnected: live.closed, closed, close };
}

/**
 * Tells the editor the session's slash commands once it has the session's id (just after the response; MCP servers
 * still starting add their prompts at the next prompt's end).
 */
function announceCommandsAfter(session: EditorSession): void {
  setTimeout(() => void session.announceCommands().catch(() => {}), 0);
}

/** An absolute folder path the editor sent, checked: a clear error otherwise. */
async function checkFolder(path: string, field: string): Promise<string> {
  if (!isAbsolute(path)) throw acp.RequestError.invalidParams({ [field]: path }, `${field} must be an absolute path, got "${path}"`);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory())
    throw acp.RequestError.invalidParams({ [field]: path }, `${field} ${path}: ${info ? "not a folder" : "no such folder"}`);
  return resolve(path);
}

/** A server the editor configured, as minagent's MCP configuration has it (approved: the person set it up there). */
function editorMcpServer(server: acp.McpServer): ResolvedMcpServer {
  const source = "the editor";
  const pairs = (list: readonly { name: string; value: string }[]) => Object.fromEntries(list.map(({ name, value }) => [name, value]));
  if ("type" in server && (server.type === "http" || server.type === "sse"))
    return { name: server.name, source, config: { type: server.type, url: server.url, headers: pairs(server.headers) } };
  const stdio = server as acp.McpServerStdio;
  return { name: stdio.name, source, config: { command: stdio.command, args: stdio.args, env: pairs(stdio.env) } };
}
