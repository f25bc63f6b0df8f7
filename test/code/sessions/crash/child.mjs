// Runs the scripted run while a SessionRecorder writes it; the crash test kills this process with SIGKILL.
// After each line the recorder wrote (the listener has returned), it says so in the progress file with a
// synchronous write, so everything announced is known to be on disk. (A file, not stdout: a test that waits busy
// for a moment to kill would stop reading a pipe, and the child would block on it.) Settings come from the environment.
import { openSync, writeSync } from "node:fs";
import { createScriptedRun } from "./scripted-run.mjs";

const build = process.env.MINAGENT_BUILD;
const { Agent, FakeModel, ToolRegistry } = await import(`${build}/engine.js`);
const { reply, toolCall } = await import(`${build}/testing/script.js`);
const { JsonLinesSessionStore, SessionRecorder } = await import(`${build}/code/sessions/index.js`);

const store = new JsonLinesSessionStore({ directory: process.env.MINAGENT_HOME });
const recorder = new SessionRecorder({ store, cwd: process.env.SESSION_CWD, sessionId: process.env.SESSION_ID, env: {} });
const { agent, prompt } = createScriptedRun({ Agent, FakeModel, ToolRegistry, reply, toolCall }, Number(process.env.TURNS));
const progress = openSync(process.env.PROGRESS_FILE, "a");
let assistants = 0;
await agent.run(prompt, {
  onEvent: (event) => {
    recorder.listen(event);
    if (recorder.error) throw recorder.error;
    if (event.type === "run-start") writeSync(progress, "user\n");
    if (event.type === "model-call-end") writeSync(progress, `assistant ${assistants++}\n`);
    if (event.type === "tool-call-end") writeSync(progress, `tool ${event.toolCall.id}\n`);
  },
});
writeSync(progress, "finished\n");
