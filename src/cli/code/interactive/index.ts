// The interactive terminal UI of `minagent code`, entered when stdin is a terminal. See docs/cli-code-interactive.md.
import type { CodeSessionContext } from "../session-context.js";
import { InteractiveSession } from "./interactive-session.js";

/**
 * Runs the interactive session until the person leaves: resolves to the exit code (0 when they quit, 130 after
 * Ctrl-C twice at an empty prompt, 143 when the process was told to stop, 129 when its terminal hung up).
 */
export function runInteractiveSession(context: CodeSessionContext): Promise<number> {
  return new InteractiveSession(context).run();
}
