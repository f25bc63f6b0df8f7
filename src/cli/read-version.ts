import { readFile } from "node:fs/promises";

/** minagent's version, from its package.json (for --version, and the agentInfo an editor is told). */
export async function readVersion(): Promise<string> {
  const manifest = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}
