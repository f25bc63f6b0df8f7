#!/usr/bin/env node
import module from "node:module";
import { fileURLToPath } from "node:url";

// Node 22.1 and later keep the compiled code of the modules loaded on disk (under the system's temporary folder, or
// NODE_COMPILE_CACHE), so that later starts skip compiling them again. Turned on before the CLI's own modules load,
// hence the dynamic imports below; a Node without it (20) starts as before.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

/** The bundled CLI (npm run build makes it), else the same modules one by one (a build by tsc alone). */
async function loadCli(): Promise<typeof import("./cli-entry.js")> {
  const bundle = new URL("./bundle/entry.js", import.meta.url);
  try {
    return (await import(bundle.href)) as typeof import("./cli-entry.js");
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(fileURLToPath(bundle));
    if (!missing) throw error;
    return import("./cli-entry.js");
  }
}

const { processIo, main } = await loadCli();
const io = processIo();
main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    io.stderr(`minagent: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
