import { createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startTraceServer } from "../../../src/trace/viewer/trace-server.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

// Every directory watcher the server starts, and whether it was stopped: the real watcher, counted.
const watchers = vi.hoisted(() => ({ started: 0, stopped: 0 }));
vi.mock("../../../src/trace/viewer/watch-directory.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../../src/trace/viewer/watch-directory.js")>();
  return {
    ...original,
    watchTraceDirectory: (...args: Parameters<typeof original.watchTraceDirectory>) => {
      watchers.started++;
      const stop = original.watchTraceDirectory(...args);
      return () => {
        watchers.stopped++;
        stop();
      };
    },
  };
});

afterEach(() => {
  vi.useRealTimers();
  watchers.started = 0;
  watchers.stopped = 0;
});

describe("starting the trace viewer's server", () => {
  it("leaves no directory watcher and no timer running when the port is busy", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    // Timers faked (only timers): every interval the start sets up is counted, and none fires.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
    try {
      const port = (busy.address() as { port: number }).port;
      await expect(startTraceServer({ path: temporaryFolder("minagent-viewer-busy-"), port })).rejects.toMatchObject({
        code: "EADDRINUSE",
      });
      expect(watchers.started - watchers.stopped).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
      busy.close();
    }
  });

  it("watches the directory once it listens, and stops watching when closed", async () => {
    const server = await startTraceServer({ path: temporaryFolder("minagent-viewer-start-") });
    expect(watchers).toEqual({ started: 1, stopped: 0 });
    await server.close();
    expect(watchers).toEqual({ started: 1, stopped: 1 });
  });
});
