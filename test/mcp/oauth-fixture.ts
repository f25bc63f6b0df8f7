import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startListeningServer } from "./listening-server.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

/**
 * A stand-in browser for `$BROWSER`: given a login's URL, it opens the page and follows the authorization server's
 * redirect back to minagent's 127.0.0.1 listener, as a person's browser would.
 */
export const standInBrowserProgram = join(fixtures, "stand-in-browser.mjs");

/** The OAuth-protected MCP server of fixtures/oauth-server.mjs, running. */
export type OAuthServer = { url: string; output: () => string; stop: () => Promise<void> };

/** Starts fixtures/oauth-server.mjs with `flags` on a free port of 127.0.0.1. Stop it when done (by its pid). */
export async function startOAuthFixture(...flags: string[]): Promise<OAuthServer> {
  const server = await startListeningServer("the OAuth fixture", [join(fixtures, "oauth-server.mjs"), ...flags]);
  return { url: `http://127.0.0.1:${server.port}/mcp`, output: server.output, stop: server.stop };
}
