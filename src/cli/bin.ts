#!/usr/bin/env node
import { processIo } from "./io.js";
import { main } from "./main.js";

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
