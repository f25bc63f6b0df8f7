import { execFileSync } from "node:child_process";
import { accessSync, constants, copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium } from "playwright-core";

const repository = fileURLToPath(new URL("../../../", import.meta.url));

/** Flags for a quiet, offline headless Chromium: no sandbox (containers), no GPU, no calls home. */
export const chromiumArguments = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Debian's Chromium (`/usr/bin/chromium`), or one on the PATH, or the one `CHROMIUM` names; throws one clear
 * message when there is none.
 */
export function findChromium(): string {
  const candidates = process.env.CHROMIUM ? [process.env.CHROMIUM] : ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
  if (!process.env.CHROMIUM)
    for (const folder of (process.env.PATH ?? "").split(delimiter))
      if (folder) candidates.push(join(folder, "chromium"), join(folder, "chromium-browser"));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not this one
    }
  }
  throw new Error(
    `The trace viewer's browser tests need Chromium, and none was found (${candidates.slice(0, 2).join(", ")}${process.env.CHROMIUM ? "" : " or chromium on the PATH"}). ` +
      "Run scripts/install-test-deps.sh (it installs Debian's chromium package), then run the tests again.",
  );
}

/** A headless Chromium with a fresh profile in a temporary folder, removed when it closes. Close it (context.close()) when done. */
export async function launchChromium(): Promise<BrowserContext> {
  const executablePath = findChromium();
  const profile = mkdtempSync(join(tmpdir(), "minagent-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: chromiumArguments,
    viewport: { width: 1400, height: 820 },
    // Times are drawn in the browser's zone and numbers in its locale: fixed, for screenshots that do not change.
    timezoneId: "UTC",
    locale: "en-US",
    timeout: 60_000,
  });
  // The profile is the browser's own: it goes when the browser does.
  // The profile goes with the browser: once close() has waited for Chromium to exit, nothing writes to it.
  const close = context.close.bind(context);
  context.close = async (...args: Parameters<BrowserContext["close"]>) => {
    await close(...args);
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  };
  return context;
}

/**
 * Compiles the viewer's page (src/trace/viewer/page) into a temporary folder, as the build does into dist/,
 * and returns the folder to serve it from. The repository's dist/ is not touched.
 */
export function compilePage(): string {
  const out = mkdtempSync(join(tmpdir(), "minagent-viewer-page-"));
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const page = join(repository, "src/trace/viewer/page");
  execFileSync(process.execPath, [tsc, "-p", join(page, "tsconfig.json"), "--outDir", out], { timeout: 120_000, stdio: "pipe" });
  const assets = join(out, "trace/viewer/page");
  for (const file of ["index.html", "viewer.css"]) copyFileSync(join(page, file), join(assets, file));
  if (!existsSync(join(assets, "main.js"))) throw new Error(`compiling the page wrote no main.js into ${assets}`);
  return assets;
}
