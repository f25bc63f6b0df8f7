import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { basename, delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { serveTraces, traceCommand } from "../../../src/cli/commands/trace.js";
import { fakeIo } from "../../helpers/fake-io.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { writeResearchTrace } from "./make-traces.js";

/** Waits until the command has printed its URL (it prints once the server listens). */
async function printedUrl(stdout: () => string): Promise<string> {
  for (let tries = 0; tries < 200; tries++) {
    const match = /Trace viewer: (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(stdout());
    if (match) return match[1] as string;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no URL printed; stdout was: ${stdout()}`);
}

describe("minagent trace serve", () => {
  it("serves a directory on a free port on 127.0.0.1, prints the URL, and stops when told", async () => {
    const directory = temporaryFolder("minagent-serve-");
    const file = await writeResearchTrace(directory);
    const stop = new AbortController();
    const { io, stdout } = fakeIo();
    const exit = serveTraces([directory], io, stop.signal);
    const url = await printedUrl(stdout);
    expect(stdout()).toContain(`Serving the traces and sessions in ${directory}`);
    const list = (await (await fetch(`${url}api/traces`)).json()) as { name: string }[];
    expect(list.map((entry) => entry.name)).toEqual([basename(file)]);
    stop.abort();
    expect(await exit).toBe(0);
    await expect(fetch(`${url}api/traces`)).rejects.toThrow();
  });

  it("takes --port, and opens a single file's trace directly", async () => {
    const directory = temporaryFolder("minagent-serve-");
    const file = await writeResearchTrace(directory);
    const port = await freePort();
    const stop = new AbortController();
    const { io, stdout } = fakeIo();
    const exit = serveTraces([file, "--port", String(port)], io, stop.signal);
    const url = await printedUrl(stdout);
    expect(url).toBe(`http://127.0.0.1:${port}/#/trace/${encodeURIComponent(basename(file))}`);
    stop.abort();
    expect(await exit).toBe(0);
  });

  it.runIf(process.platform === "linux")("opens the page in the browser with --open (xdg-open)", async () => {
    const bin = temporaryFolder("minagent-serve-bin-");
    const opened = join(bin, "opened.txt");
    writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}${delimiter}${path ?? ""}`;
    const stop = new AbortController();
    const { io, stdout } = fakeIo();
    try {
      const exit = serveTraces([temporaryFolder("minagent-serve-"), "--open"], io, stop.signal);
      const url = await printedUrl(stdout);
      for (let tries = 0; tries < 200 && !(existsSync(opened) && readFileSync(opened, "utf8") !== ""); tries++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect(readFileSync(opened, "utf8")).toBe(url);
      stop.abort();
      expect(await exit).toBe(0);
    } finally {
      process.env.PATH = path;
    }
  });

  it("takes --max-trace-mb: a trace larger than it answers 413, saying the limit and the option to raise it", async () => {
    const directory = temporaryFolder("minagent-serve-");
    const file = await writeResearchTrace(directory);
    const size = readFileSync(file).length;
    const stop = new AbortController();
    const { io, stdout } = fakeIo();
    // A limit below the trace's size: a few kilobytes, in MB.
    const exit = serveTraces([directory, "--max-trace-mb", String(size / 2 / 1e6)], io, stop.signal);
    const url = await printedUrl(stdout);
    const response = await fetch(`${url}api/traces/${encodeURIComponent(basename(file))}`);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: string }).error).toMatch(/more than the \d+ kB this viewer loads.*--max-trace-mb 1 /);
    stop.abort();
    expect(await exit).toBe(0);
  });

  it("says what is wrong with bad arguments, a busy port or a missing directory (exit code 2)", async () => {
    const cases: [string[], RegExp][] = [
      [["--port", "http"], /--port needs a port number from 0 to 65535, got "http"/],
      [["--port"], /--port needs a port number from 0 to 65535, got nothing/],
      [["--max-trace-mb", "lots"], /--max-trace-mb needs a size in MB above 0 \(e\.g\. 300\), got "lots"/],
      [["--max-trace-mb=0"], /--max-trace-mb needs a size in MB above 0 \(e\.g\. 300\), got "0"/],
      [["--fast"], /unknown option "--fast"/],
      [["a", "b"], /name one directory or file/],
      [[`${temporaryFolder("minagent-serve-")}/missing`], /missing: no such file or directory/],
    ];
    for (const [args, message] of cases) {
      const { io, stderr } = fakeIo();
      expect(await serveTraces(args, io, AbortSignal.abort())).toBe(2);
      expect(stderr()).toMatch(message);
    }
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    try {
      const port = (busy.address() as { port: number }).port;
      const { io, stderr } = fakeIo();
      expect(await serveTraces([temporaryFolder("minagent-serve-"), "--port", String(port)], io, AbortSignal.abort())).toBe(2);
      expect(stderr()).toMatch(`port ${port} is in use`);
    } finally {
      busy.close();
    }
  });

  it("is described in the trace command's help", async () => {
    const { io, stdout } = fakeIo();
    expect(await traceCommand(["serve", "--help"], io)).toBe(0);
    expect(stdout()).toMatch(/minagent trace serve \[file or directory\] \[--port <n>\] \[--open\] \[--max-trace-mb <n>\]/);
    expect(stdout()).toMatch(/--max-trace-mb <n>\s+the largest file it loads, in MB \(default 100\)/);
    expect(stdout()).toMatch(/127\.0\.0\.1 only/);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
