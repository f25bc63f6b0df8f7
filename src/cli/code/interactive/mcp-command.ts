import { canOpenBrowser, openInBrowser } from "../../open-in-browser.js";
import { describeMcpServers } from "../start-mcp-servers.js";
import type { SlashHost } from "./slash-commands.js";

const actions = ["restart", "reconnect", "login", "logout"];

/**
 * `/mcp`: the servers' states. Without leaving the session: `/mcp restart <server>` (Claude Code's `/mcp reconnect`
 * too) restarts one whatever its state; `/mcp login <server>` and `/mcp logout <server>` handle its OAuth login.
 */
export async function runMcpCommand(host: SlashHost, args: string): Promise<void> {
  const [action, name, ...more] = args.trim().split(/\s+/).filter(Boolean);
  const mcp = host.agent.mcp;
  const statuses = mcp?.status() ?? [];
  if (!action) {
    host.print(
      statuses.length === 0
        ? host.style.dim("No MCP servers. Configure them in .mcp.json, ~/.minagent/mcp.json or with --mcp-config <file> (docs/mcp.md).")
        : describeMcpServers(statuses).join("\n"),
    );
    return;
  }
  if (!actions.includes(action) || more.length > 0) {
    host.print(
      host.style.yellow(
        `Unknown /mcp ${args.trim()}: /mcp lists the servers, /mcp restart <server> restarts one, /mcp login <server> and /mcp logout <server> handle its login.`,
      ),
    );
    return;
  }
  const names = statuses.map((status) => status.name);
  if (!name || !mcp) {
    host.print(host.style.yellow(names.length > 0 ? `Name the server: /mcp ${action} <server> (${names.join(", ")}).` : "No MCP servers."));
    return;
  }
  const server = statuses.find((status) => status.name === name);
  if (!server) {
    host.print(host.style.yellow(`There is no MCP server named "${name}" (servers: ${names.join(", ") || "none"}).`));
    return;
  }
  if (action === "restart" || action === "reconnect") {
    host.print(host.style.dim(`Restarting ${name}…`));
    await mcp.restart(name);
    host.print(describeMcpServers(mcp.status().filter((status) => status.name === name)).join("\n"));
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
  const status = await host.cancellable((signal) =>
    mcp.login(
      server.name,
      ({ url }) => {
        host.print(
          `Log in to ${server.name} in your browser${open ? " (opening it)" : ""}:\n\n  ${url}\n\n${host.style.dim("Waiting for the browser to come back (Esc gives up)…")}`,
        );
        if (open) openInBrowser(url, { env: io.env, onFailure: (message) => host.print(host.style.yellow(message)) });
      },
      { signal },
    ),
  );
  host.print(
    status.state === "ready"
      ? `Logged in to ${server.name}: ${status.tools.length} tools, at the next turn.`
      : host.style.yellow(`Could not log in to ${server.name}: ${status.problem ?? status.state}`),
  );
}
