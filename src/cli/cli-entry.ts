// What bin.ts runs: the CLI and the real process's io. scripts/bundle-cli.mjs bundles the CLI from this file.
export { processIo } from "./io.js";
export { main } from "./main.js";
