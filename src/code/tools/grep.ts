// The Grep tool's entry (what `tools/grep.js` has always exported); the tool lives in grep/: tool.ts (the tool),
// output.ts (what it prints), pattern.ts (the pattern translated to JavaScript), file-types.ts (type and glob),
// search-pool.ts (the threads and their watchdog), search-thread.cts (one thread's search) and protocol.ts.
export { compileSearchPattern, requiredLiterals, type SearchPattern } from "./grep/pattern.js";
export { createGrepTool, type GrepToolOptions } from "./grep/tool.js";
