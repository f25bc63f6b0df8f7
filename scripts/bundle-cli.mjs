// The CLI as a few bundled files: dist/cli/bundle/, built by esbuild from tsc's output (npm run build runs it).
// Node loads some 300 of our modules before `minagent code` shows its prompt; one ESM file each costs it a
// resolution, a read and a compile, about 70 ms in all on this project's machine (npm run bench:interactive). The
// bundle is the same code: dynamic imports stay lazy (esbuild splits them into chunks), packages stay in
// node_modules, and each module's `import.meta.url` still names its own file in dist/, so that files found beside
// it (package.json, the trace viewer's page, Grep's worker) and `createRequire` resolve as before.
import { readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = join(root, "dist");
const outdir = join(dist, "cli", "bundle");

/** Every module's `import.meta.url` made its dist file's URL, relative to the bundle file it lands in. */
const keepModuleUrls = {
  name: "keep-module-urls",
  setup(builder) {
    builder.onLoad({ filter: /\/dist\/.*\.js$/ }, async ({ path }) => {
      const source = await readFile(path, "utf8");
      if (!source.includes("import.meta.url")) return { contents: source, loader: "js", resolveDir: dirname(path) };
      // Every output file of the bundle is in `outdir` (chunks too), so one relative path serves them all.
      const fromBundle = relative(outdir, path).split("\\").join("/");
      const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
      return { contents: source.replaceAll("import.meta.url", url), loader: "js", resolveDir: dirname(path) };
    });
  },
};

await build({
  entryPoints: { entry: join(dist, "cli", "cli-entry.js") },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  chunkNames: "chunk-[hash]",
  legalComments: "none",
  logLevel: "warning",
  plugins: [keepModuleUrls],
});
console.log(`bundled the CLI into ${relative(root, outdir)}/`);
