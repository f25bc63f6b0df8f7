import type * as acp from "@agentclientprotocol/sdk";
import type { EditorFiles } from "../../code/workspace.js";

/**
 * The editor's files over ACP (`fs/read_text_file`, `fs/write_text_file`): Read and Edit see its buffers, unsaved
 * edits included, and Write and Edit hand it the whole new text. The workspace checks each path before it asks.
 */
export function editorFilesOf(client: acp.AgentContext, sessionId: string): EditorFiles {
  return {
    readText: async (absolute) => (await client.request("fs/read_text_file", { sessionId, path: absolute })).content,
    writeText: async (absolute, content) => {
      await client.request("fs/write_text_file", { sessionId, path: absolute, content });
    },
  };
}
