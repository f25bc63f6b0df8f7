import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chooseSession } from "../../../src/cli/code/choose-session.js";
import { createCodeSessionStore } from "../../../src/cli/code/code-session-store.js";
import type { CodeOptions } from "../../../src/cli/code/session-context.js";
import { JsonLinesSessionStore, projectFolderName, sessionFormatVersion } from "../../../src/code/sessions/index.js";
import { SessionFileError } from "../../../src/code/sessions/session-file-error.js";
import type { SessionHeader } from "../../../src/code/sessions/session-format.js";
import { UsageError } from "../../../src/index.js";
import { buildPrivately } from "../helpers/private-build.js";
import { makeTemporaryHome } from "./helpers.js";

let home: ReturnType<typeof makeTemporaryHome>;
let store: JsonLinesSessionStore;
beforeEach(() => {
  home = makeTemporaryHome();
  store = new JsonLinesSessionStore({ directory: home.directory });
});
afterEach(() => home.remove());

const header = (sessionId: string): SessionHeader => ({
  type: "session",
  version: sessionFormatVersion,
  sessionId,
  cwd: home.cwd,
  createdAt: new Date().toISOString(),
});

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

function thrown(action: () => void): Error {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error("it did not throw");
}

describe("a session path the system refuses is said in words, with the path and what to do", () => {
  it("a folder where the session file should be: load, and --resume in the CLI", async () => {
    const path = store.sessionPath(home.cwd, "folder-session");
    mkdirSync(path, { recursive: true });
    const error = await rejection(store.load("folder-session"));
    expect(error).toBeInstanceOf(SessionFileError);
    expect(error.message).toBe(
      `${path} is a folder, not a session file. Move it away (or delete it) and try again, or use another session.`,
    );
    expect((error as SessionFileError).code).toBe("EISDIR");

    // The CLI reports a UsageError as misuse (exit 2) with its message: not a raw EISDIR.
    const sessions = createCodeSessionStore({ cwd: home.cwd, directory: home.directory, env: {} });
    const options = { cwd: home.cwd, print: true, continue: false, resume: "folder-session", forkSession: false } as CodeOptions;
    const refusal = await rejection(chooseSession(sessions, options));
    expect(refusal).toBeInstanceOf(UsageError);
    expect(refusal.message).toContain(`${path} is a folder, not a session file`);
    // Refused before anything was written: the lock it took to load is given back.
    expect(() => store.lock("folder-session")).not.toThrow();
  });

  it("a file where a folder should be: the project's folder, and the projects folder", async () => {
    const projectFolder = join(home.directory, "projects", projectFolderName(home.cwd));
    mkdirSync(dirname(projectFolder), { recursive: true });
    writeFileSync(projectFolder, "not a folder");
    const error = thrown(() => store.append("new-session", [header("new-session")]));
    expect(error).toBeInstanceOf(SessionFileError);
    expect(error.message).toBe(
      `Cannot create ${projectFolder}: a part of that path is a file, not a folder. Move that file away, or keep sessions in another data directory (MINAGENT_HOME).`,
    );

    const other = makeTemporaryHome();
    try {
      mkdirSync(other.directory, { recursive: true });
      writeFileSync(join(other.directory, "projects"), "not a folder");
      const loading = await rejection(new JsonLinesSessionStore({ directory: other.directory }).load("any-session"));
      expect(loading).toBeInstanceOf(SessionFileError);
      expect(loading.message).toMatch(/^Cannot read .*\/projects: a part of that path is a file, not a folder\./);
    } finally {
      other.remove();
    }
  });

  it("a session file this user may not read", async () => {
    store.append("private-session", [header("private-session")]);
    store.unlock("private-session");
    const path = store.sessionPath(home.cwd, "private-session");
    const isRoot = process.getuid?.() === 0;
    if (!isRoot) {
      chmodSync(path, 0o000);
      const error = await rejection(store.load("private-session"));
      expect(error).toBeInstanceOf(SessionFileError);
      expect(error.message).toMatch(new RegExp(`^No permission to read ${path} \\(this process runs as .+\\)\\. Give it back`));
      return;
    }
    // Root may read anything: the refusal is seen by a real unprivileged user (nobody) loading the root's file.
    const nobody = 65534;
    const build = buildPrivately(["code/sessions/index.ts"], "session-file-errors");
    try {
      for (const folder of [build.directory, home.directory, dirname(dirname(path)), dirname(path)]) chmodSync(folder, 0o755);
      chmodSync(path, 0o600);
      const script = `const { JsonLinesSessionStore } = await import(process.env.BUILD + "/code/sessions/index.js");
try { await new JsonLinesSessionStore({ directory: process.env.HOME_DIRECTORY }).load("private-session"); console.log("loaded"); }
catch (error) { console.log(JSON.stringify({ name: error.name, message: error.message })); }`;
      const { stdout } = await promisify(execFile)(
        "setpriv",
        ["--reuid", String(nobody), "--regid", String(nobody), "--clear-groups", process.execPath, "--input-type=module", "-e", script],
        { env: { PATH: process.env.PATH ?? "", BUILD: build.build, HOME_DIRECTORY: home.directory }, timeout: 30_000 },
      );
      const outcome = JSON.parse(stdout.trim()) as { name: string; message: string };
      expect(outcome.name).toBe("SessionFileError");
      expect(outcome.message).toMatch(
        new RegExp(`^No permission to read ${path} \\(this process runs as .+ \\(uid ${nobody}\\)\\)\\. Give it back`),
      );
    } finally {
      build.remove();
    }
  }, 30_000);
});
