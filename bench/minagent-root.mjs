// Where the built minagent package is. Other engineers rebuild dist/ (rm -rf first) in the same working
// tree, so run.mjs benchmarks a snapshot of it (MINAGENT_ROOT); without one, the working tree's dist/.
import { fileURLToPath, pathToFileURL } from "node:url";

export const minagentRoot = process.env.MINAGENT_ROOT ?? fileURLToPath(new URL("..", import.meta.url));

/** A file URL inside the built package, e.g. minagentUrl("dist/index.js"). */
export function minagentUrl(path) {
  return pathToFileURL(`${minagentRoot}/${path}`).href;
}
