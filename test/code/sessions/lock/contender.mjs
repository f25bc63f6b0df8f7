// One `minagent code -p` invocation's session handling, as src/cli/commands/code.ts does it: chooseSession on the
// CLI's session store (--continue, --resume <id>, --fork-session), then a scripted run recorded into the session,
// then flush. The session-lock test starts two of these at once on one session. Its one tool call waits until the
// file WAIT_FOR exists (when set), so that the test decides how long the run holds the session. It says what it
// does on stdout, one JSON object a line: {"session"} once the session is chosen, {"waiting"} from inside the tool,
// {"refused"} (exit 2) when chooseSession throws, {"finished"} at the end.
import { existsSync } from "node:fs";

const build = process.env.MINAGENT_BUILD;
const { Agent, FakeModel, ToolRegistry } = await import(`${build}/engine.js`);
const { reply, toolCall } = await import(`${build}/testing/script.js`);
const { createCodeSessionStore } = await import(`${build}/cli/code/code-session-store.js`);
const { chooseSession } = await import(`${build}/cli/code/choose-session.js`);

const say = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const cwd = process.env.SESSION_CWD;
const sessions = createCodeSessionStore({ cwd, directory: process.env.MINAGENT_HOME, env: {} });
let session;
try {
  session = await chooseSession(sessions, {
    cwd,
    print: true,
    continue: process.env.CONTINUE === "1",
    resume: process.env.RESUME || undefined,
    forkSession: process.env.FORK === "1",
  });
} catch (error) {
  say({ refused: error.message, name: error.name });
  process.exit(2);
}
say({ session: session.id });

const name = process.env.NAME ?? "run";
const registry = new ToolRegistry().add({
  name: "wait",
  description: "Waits for the test",
  parameters: { type: "object", properties: {} },
  execute: async () => {
    say({ waiting: name });
    while (process.env.WAIT_FOR && !existsSync(process.env.WAIT_FOR)) await new Promise((resolve) => setTimeout(resolve, 20));
    return `${name} waited`;
  },
});
const model = new FakeModel([reply(`${name}: waiting first.`, toolCall("wait", {}, "call_wait")), `${name} is done.`]);
const agent = new Agent(model, registry, { system: "You wait.", maxSteps: 4 });
await agent.run(`${name}: go on`, { history: session.history, onEvent: session.record });
await session.flush();
say({ finished: name });
