#!/usr/bin/env node
import module from "node:module";

// Node 22.1 and later keep the compiled code of the modules loaded on disk (under the system's temporary folder, or
// NODE_COMPILE_CACHE), so that later starts skip compiling them again. Turned on before the CLI's own modules load,
// hence the imports below; a Node without it (20) starts as before.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { processIo } = await import("./io.js");
const { main } = await import("./main.js");

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
