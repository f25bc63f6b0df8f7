// The CLI as a few bundled files: dist/cli/bundle/, built by esbuild from tsc's output (npm run build runs it).
// Node loads some 300 of our modules before `minagent code` shows its prompt; one ESM file each costs it a
// resolution, a read and a compile, about 70 ms in all on this project's machine (npm run bench:interactive). The
// bundle is the same code: dynamic imports stay lazy (esbuild splits them into chunks), and each module's
// `import.meta.url` still names its own file in dist/, so that files found beside it (package.json, the trace
// viewer's page, Grep's worker) and `createRequire` resolve as before. The dependencies are bundled too: the
// Anthropic SDK alone is some 250 small ESM files (with @opentelemetry/api, which it imports), about 200 ms to load
// one by one against 50 ms as one chunk, and each CommonJS package (picomatch, ignore…) is read and scanned for its
// exports at start. They are pinned to exact versions, so the chunks hold the very code npm installs. Left in
// node_modules: the optional peers (a user installs them, or not), the packages loaded with `createRequire` (only
// when first used), and web-tree-sitter and the Bash grammar, which find their WebAssembly files beside themselves.
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
      if (!path.startsWith(`${dist}/`)) return undefined; // a package's own dist/ folder: bundled as it is
      const source = await readFile(path, "utf8");
      if (!source.includes("import.meta.url")) return { contents: source, loader: "js", resolveDir: dirname(path) };
      // Every output file of the bundle is in `outdir` (chunks too), so one relative path serves them all.
      const fromBundle = relative(outdir, path).split("\\").join("/");
      const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
      return { contents: source.replaceAll("import.meta.url", url), loader: "js", resolveDir: dirname(path) };
    });
  },
};

/**
 * Imported from node_modules at run time; every other dependency is bundled. @opentelemetry/api is a peer for
 * minagent/otel, but the Anthropic SDK imports it too: bundled for the SDK, while minagent/otel loads the user's
 * copy. The two share what matters, as every copy of the API keeps its registrations in one global.
 */
const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
const external = [...Object.keys(manifest.peerDependencies).filter((name) => name !== "@opentelemetry/api"), "web-tree-sitter", "tree-sitter-bash"]
  .flatMap((name) => [name, `${name}/*`]);

await build({
  entryPoints: { entry: join(dist, "cli", "cli-entry.js") },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  chunkNames: "chunk-[hash]",
  legalComments: "none",
  logLevel: "warning",
  plugins: [keepModuleUrls],
});
console.log(`bundled the CLI into ${relative(root, outdir)}/`);
