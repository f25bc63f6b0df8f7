import { createRequire } from "node:module";

/**
 * Opens the URL with the platform's opener (`open`, `start`, `xdg-open`); if there is none, `onFailure` hears a
 * sentence saying so, and the printed URL is enough.
 */
export function openInBrowser(url: string, onFailure: (message: string) => void): void {
  // Loaded here, not at import: only a person asking to open something pays for it.
  const { spawn } = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command as string, args as string[], { detached: true, stdio: "ignore" });
    child.on("error", () => onFailure(`Could not open a browser (${command} failed); open ${url} yourself.`));
    child.unref();
  } catch {
    onFailure(`Could not open a browser; open ${url} yourself.`);
  }
}
