import { spawn } from "node:child_process";
import type { CliIo } from "./io.js";

/**
 * Opens the URL in the person's browser: `$BROWSER` when set (as many command-line tools honour it), else the
 * platform's opener. The caller prints the URL too: when nothing can be opened, the printed URL is enough.
 */
export function openInBrowser(url: string, io: CliIo): void {
  const browser = io.env.BROWSER;
  const [command, args]: [string, string[]] = browser
    ? [browser, [url]]
    : process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: "ignore", env: io.env });
    child.on("error", () => io.stderr(`Could not open a browser (${command} failed); open the URL yourself.\n`));
    child.unref();
  } catch {
    io.stderr("Could not open a browser; open the URL yourself.\n");
  }
}

/** Whether a browser can be opened here: `$BROWSER` is set, or there is a desktop (macOS, Windows, an X or Wayland display). */
export function canOpenBrowser(env: CliIo["env"]): boolean {
  if (env.BROWSER) return true;
  if (process.platform === "darwin" || process.platform === "win32") return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}
