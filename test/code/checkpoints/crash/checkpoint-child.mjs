// Opens a session's checkpoints and runs prompts whose "shell command" changes a few files each, until the crash
// test kills this process with SIGKILL. Prompt i modifies files f(5i)…f(5i+4), deletes d(i) and creates n(i)-0/1:
// no file is changed by two prompts, so what the log records of each prompt can be checked on its own. After each
// prompt's command returns it says so in the progress file (synchronously). Settings come from the environment.
import { mkdirSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";

const { Checkpoints } = await import(`${process.env.MINAGENT_BUILD}/code/checkpoints/index.js`);
const root = process.env.WORKSPACE;
const checkpoints = await Checkpoints.open({
  directory: process.env.STORE,
  sessionId: process.env.SESSION_ID,
  roots: [root],
});
const progress = openSync(process.env.PROGRESS_FILE, "a");
writeSync(progress, "opened\n");
for (let prompt = 0; prompt < Number(process.env.PROMPTS); prompt++) {
  checkpoints.beginPrompt(`prompt ${prompt}`, []);
  await checkpoints.trackCommand("Bash", async () => {
    for (let file = prompt * 5; file < prompt * 5 + 5; file++) writeFileSync(join(root, "files", `f${file}.txt`), `changed by ${prompt}\n`);
    rmSync(join(root, "files", `d${prompt}.txt`), { force: true });
    mkdirSync(join(root, "new"), { recursive: true });
    for (const index of [0, 1]) writeFileSync(join(root, "new", `n${prompt}-${index}.txt`), `new ${prompt} ${index}\n`);
  });
  writeSync(progress, `prompt ${prompt}\n`);
}
writeSync(progress, "finished\n");
