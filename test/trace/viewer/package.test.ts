import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, cpSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { writeResearchTrace } from "./make-traces.js";

// The page is static files in the package: built by the package's own build script into dist/, listed by
// `npm pack`, and served by the built CLI with no network. Built in a copy of the repository (dist/ is untouched).

const repository = fileURLToPath(new URL("../../../", import.meta.url));
const pageFiles = ["index.html", "viewer.css", "main.js", "api.js", "waterfall.js", "detail-panel.js", "trace-model.js", "trace-view.js"];

describe("the trace viewer in the package", () => {
  it("is built into dist/ by `npm run build`, packed by `npm pack`, and served by the built `minagent trace serve`", async () => {
    const copy = temporaryFolder("minagent-viewer-package-");
    for (const file of ["package.json", "tsconfig.json", "README.md"]) copyFileSync(join(repository, file), join(copy, file));
    cpSync(join(repository, "src"), join(copy, "src"), { recursive: true });
    cpSync(join(repository, "scripts"), join(copy, "scripts"), { recursive: true });
    symlinkSync(join(repository, "node_modules"), join(copy, "node_modules"));
    execFileSync("npm", ["run", "build"], { cwd: copy, stdio: "pipe", timeout: 240_000 });

    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: copy, encoding: "utf8" }),
    ) as {
      files: { path: string }[];
    }[];
    const paths = new Set(packed[0]?.files.map((file) => file.path));
    for (const file of pageFiles) expect(paths, file).toContain(`dist/trace/viewer/page/${file}`);
    expect(paths).toContain("dist/trace/viewer/trace-server.js");

    const traces = temporaryFolder("minagent-viewer-package-traces-");
    await writeResearchTrace(traces);
    const child = spawn(process.execPath, [join(copy, "dist/cli/bin.js"), "trace", "serve", traces], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = "";
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 30_000);
        child.stdout.setEncoding("utf8");
        child.stdout.on("data", (chunk: string) => {
          output += chunk;
          const match = /Trace viewer: (\S+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1] as string);
          }
        });
        child.on("exit", (code) => reject(new Error(`the CLI exited (${code}): ${output}`)));
      });
      const page = await fetch(url);
      expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
      const html = await page.text();
      expect(html).toContain('<script type="module" src="main.js"></script>');
      // Nothing is loaded from anywhere else: every src and href is a file of the page itself.
      for (const [, reference] of html.matchAll(/(?:src|href)="([^"]+)"/g))
        expect(reference).toMatch(/^(?:[a-z-]+\.(?:js|css)|#\/|data:,)$/);
      for (const file of pageFiles) expect((await fetch(new URL(file, url))).status, file).toBe(200);
      const main = await (await fetch(new URL("main.js", url))).text();
      expect(main).not.toMatch(/https?:\/\//);
      expect(((await (await fetch(new URL("api/traces", url))).json()) as unknown[]).length).toBe(1);
    } finally {
      child.kill("SIGTERM");
    }
  }, 300_000);
});
