import { stat } from "node:fs/promises";
import type { Tool } from "../../engine.js";
import { fileError, type Workspace } from "../workspace.js";
import {
  countLines,
  detectLineEnding,
  formatSize,
  joinByteOrderMark,
  plural,
  sniffLength,
  splitByteOrderMark,
  withLineEnding,
} from "./file-text.js";

type WriteArguments = { file_path: string; content: string };

/**
 * Claude Code's `Write { file_path, content }`: creates a file (and its missing folders) or replaces one whole.
 * An existing file must have been read in this session and not changed on disk since; the write is atomic. When it
 * replaces a file that uses CRLF line endings (or starts with a byte-order mark) and `content` has only LF line
 * breaks (or no mark), the file's convention is kept. The observation says created or overwritten, and the size.
 * With an editor ({@link Workspace.editor}) the file must be as the editor showed it at the Read, its conventions
 * are the editor text's, and the text is written through the editor.
 * Replacing a file with more than one hard link needs approval ({@link Workspace.isLocationUncertain}).
 * @example registry.add(createWriteTool(workspace))
 */
export function createWriteTool(workspace: Workspace): Tool {
  return {
    name: "Write",
    description: [
      "Create a file, or replace an existing file's whole content. Missing folders are created.",
      "An existing file must be read with Read first. To change part of a file, prefer Edit, which sends only the change.",
      "Do not create files (such as documentation) that the task does not need.",
    ].join(" "),
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        file_path: { type: "string", description: "Path of the file: absolute, or relative to the workspace root." },
        content: { type: "string", description: "The file's complete new content." },
      },
      required: ["file_path", "content"],
    },
    needsApproval: (args) => workspace.isLocationUncertain((args as WriteArguments).file_path),
    execute: async (args) => {
      const { file_path, content } = args as WriteArguments;
      const absolute = await workspace.resolve(file_path);
      return workspace.exclusive(absolute, () => writeFile(workspace, absolute, content));
    },
  };
}

async function writeFile(workspace: Workspace, absolute: string, content: string): Promise<string> {
  await workspace.checkWritable(absolute);
  const before = await stat(absolute).catch(() => undefined);
  // With an editor, its text is the file as the model saw it: conventions and the old size are taken from there.
  const current = before && workspace.editor ? await workspace.readEditorText(absolute) : undefined;
  const head = before ? (current?.slice(0, sniffLength) ?? (await readHead(workspace, absolute))) : undefined;
  const { text, kept } = head === undefined ? { text: content, kept: [] } : keepConventions(content, head);
  await workspace.writeAtomic(absolute, text);
  const size = `${plural(countLines(text), "line")}, ${formatSize(Buffer.byteLength(text))}`;
  const shown = workspace.display(absolute);
  if (!before) return `Created ${shown} (${size}).`;
  const note = kept.length > 0 ? ` Kept the file's ${kept.join(" and ")}.` : "";
  const oldSize = current === undefined ? before.size : Buffer.byteLength(current);
  return `Overwrote ${shown} (${size}; it had ${formatSize(oldSize)}).${note}`;
}

async function readHead(workspace: Workspace, absolute: string): Promise<string> {
  const handle = await workspace.openFile(absolute).catch((error: unknown) => {
    throw fileError(error, `read ${workspace.display(absolute)}`);
  });
  try {
    const head = Buffer.alloc(sniffLength);
    const { bytesRead } = await handle.read(head, 0, sniffLength, 0);
    return head.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** `content` written the way the existing file was: its line endings and byte-order mark, unless `content` chose. */
function keepConventions(content: string, head: string): { text: string; kept: string[] } {
  const kept: string[] = [];
  const { bom } = splitByteOrderMark(head);
  let text = content;
  if (detectLineEnding(head) === "\r\n" && text.includes("\n") && !text.includes("\r\n")) {
    text = withLineEnding(text, "\r\n");
    kept.push("CRLF line endings");
  }
  if (bom && !text.startsWith("\uFEFF")) {
    text = joinByteOrderMark(true, text);
    kept.push("byte-order mark");
  }
  return { text, kept };
}
