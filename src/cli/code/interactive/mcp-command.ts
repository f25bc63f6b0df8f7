import { canOpenBrowser, openInBrowser } from "../../open-in-browser.js";
import { describeMcpServers } from "../start-mcp-servers.js";
import type { SlashHost } from "./slash-commands.js";

/** `/mcp`: the servers' states; `/mcp login <server>` and `/mcp logout <server>`: their OAuth logins, without leaving the session. */
export async function runMcpCommand(host: SlashHost, args: string): Promise<void> {
  const [action, name] = args.trim().split(/\s+/).filter(Boolean);
  const mcp = host.agent.mcp;
  const statuses = mcp?.status() ?? [];
  if (!action) {
    host.print(
      statuses.length === 0
        ? host.style.dim("No MCP servers. Configure them in .mcp.json, ~/.minagent/mcp.json or with --mcp-config <file> (docs/mcp.md).")
        : [
            ...describeMcpServers(statuses),
            host.style.dim("/mcp login <server> logs in to a server that asks for OAuth; /mcp logout <server> forgets its login."),
          ].join("\n"),
    );
    return;
  }
  if (action !== "login" && action !== "logout") {
    host.print(host.style.yellow(`Unknown /mcp action "${action}": use /mcp, /mcp login <server> or /mcp logout <server>.`));
    return;
  }
  const server = statuses.find((status) => status.name === name);
  if (!mcp || !server) {
    host.print(
      host.style.yellow(`No MCP server named "${name ?? ""}" (servers: ${statuses.map((status) => status.name).join(", ") || "none"}).`),
    );
    return;
  }
  if (server.transport !== "http" && server.transport !== "sse") {
    host.print(
      host.style.yellow(`${server.name} is started as a program (stdio): it has no login; the credentials it needs go in its "env".`),
    );
    return;
  }
  if (action === "logout") {
    await mcp.logout(server.name);
    host.print(`Logged out of ${server.name}: its stored login is gone; it asks again at its next request that needs one.`);
    return;
  }
  const io = host.context.io;
  const open = canOpenBrowser(io.env);
  const status = await mcp.login(server.name, ({ url }) => {
    host.print(
      `Log in to ${server.name} in your browser${open ? " (opening it)" : ""}:\n\n  ${url}\n\n${host.style.dim("Waiting for the browser to come back…")}`,
    );
    if (open) openInBrowser(url, io);
  });
  host.print(
    status.state === "ready"
      ? `Logged in to ${server.name}: ${status.tools.length} tools, at the next turn.`
      : host.style.yellow(`Could not log in to ${server.name}: ${status.problem ?? status.state}`),
  );
}
