import { createRequire } from "node:module";
import type { CliIo } from "./io.js";

/**
 * Opens the URL in the person's browser: `$BROWSER` when set (as many command-line tools honour it), else the
 * platform's opener (`open`, `start`, `xdg-open`); if there is none, `onFailure` hears a sentence saying so, and
 * the URL the caller printed is enough.
 */
export function openInBrowser(url: string, options: { env: CliIo["env"]; onFailure: (message: string) => void }): void {
  // A server chooses these URLs (its authorization endpoint, an elicitation's link): only a web page is opened, never
  // a file or another program's scheme.
  const protocol = URL.canParse(url) ? new URL(url).protocol : "";
  if (protocol !== "https:" && protocol !== "http:") {
    options.onFailure(`Not opening ${url} in a browser: only http and https links are opened.`);
    return;
  }
  // Loaded here, not at import: only a person asking to open something pays for it.
  const { spawn } = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
  const browser = options.env.BROWSER;
  // Not `cmd /c start` on Windows: cmd reads the & of every query string as a command separator.
  const [command, args]: [string, string[]] = browser
    ? [browser, [url]]
    : process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["rundll32", ["url.dll,FileProtocolHandler", url]]
        : ["xdg-open", [url]];
  try {
    // The process's own environment under the given one (a test's, or the session's): PATH finds the opener.
    const child = spawn(command, args, { detached: true, stdio: "ignore", env: { ...process.env, ...options.env } });
    child.on("error", () => options.onFailure(`Could not open a browser (${command} failed); open ${url} yourself.`));
    child.unref();
  } catch {
    options.onFailure(`Could not open a browser; open ${url} yourself.`);
  }
}

/** Whether a browser can be opened here: `$BROWSER` is set, or there is a desktop (macOS, Windows, an X or Wayland display). */
export function canOpenBrowser(env: CliIo["env"]): boolean {
  if (env.BROWSER) return true;
  if (process.platform === "darwin" || process.platform === "win32") return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}
