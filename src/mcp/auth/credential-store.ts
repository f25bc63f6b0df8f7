import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** What minagent keeps of one server's OAuth login. The SDK's shapes, stored as it hands them over (issuer included). */
export type StoredMcpCredentials = {
  /** The server's url, so that a file is never used for another server of the same name. */
  serverUrl: string;
  /** The client registration: a dynamic one, or the client id a metadata URL stands for. */
  clientInformation?: Record<string, unknown> | undefined;
  tokens?: Record<string, unknown> | undefined;
  /** When the tokens were saved (ms since the epoch): with `expires_in`, when the access token expires. */
  tokensSavedAt?: number | undefined;
  /** Where the discovery led (protected-resource and authorization-server metadata): no secret, saves requests. */
  discoveryState?: Record<string, unknown> | undefined;
};

/**
 * One file per server under `directory` (by default `~/.minagent/mcp-auth`), readable by the user only (0600, in a
 * 0700 folder): OAuth tokens and client registrations are credentials. Named after the server and a hash of its
 * url, so that renaming a server's url asks for a new login instead of sending one server's token to another.
 */
export class McpCredentialStore {
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  /** The file of a server's credentials. */
  fileOf(server: string, url: string): string {
    const hash = createHash("sha256").update(url).digest("hex").slice(0, 16);
    // A name from code is not checked as a config file's are: nothing in it may lead out of the folder.
    return join(this.directory, `${server.replace(/[^A-Za-z0-9_-]/g, "_")}-${hash}.json`);
  }

  /** The server's stored credentials, or an empty record; a file that cannot be read as JSON counts as none. */
  async load(server: string, url: string): Promise<StoredMcpCredentials> {
    try {
      const stored = JSON.parse(await readFile(this.fileOf(server, url), "utf8")) as StoredMcpCredentials;
      if (stored.serverUrl === url) return stored;
    } catch {
      // Missing or unreadable: a new login writes it again.
    }
    return { serverUrl: url };
  }

  /**
   * Writes the server's credentials: to a temporary file first, so that a crash never leaves half a file. Each write
   * has a temporary file of its own: two at once (two requests refreshing together) must not rename the same one.
   */
  async save(server: string, credentials: StoredMcpCredentials): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    await chmod(this.directory, 0o700);
    const file = this.fileOf(server, credentials.serverUrl);
    const temporary = `${file}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, file);
  }

  /** Forgets the server's login (its tokens and registration). */
  async remove(server: string, url: string): Promise<void> {
    await rm(this.fileOf(server, url), { force: true });
  }
}
