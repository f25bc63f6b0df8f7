import { describe, expect, it } from "vitest";
import { SharedLoads } from "../../../src/trace/viewer/shared-loads.js";

/** A load that ends when told, counting how many such loads run at a time. */
function controlledLoads() {
  let running = 0;
  let mostAtOnce = 0;
  const finishers: (() => void)[] = [];
  const start = (value: string) => async () => {
    running++;
    mostAtOnce = Math.max(mostAtOnce, running);
    await new Promise<void>((resolve) => finishers.push(resolve));
    running--;
    return value;
  };
  const finishAll = async () => {
    while (finishers.length > 0) {
      finishers.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { start, finishAll, mostAtOnce: () => mostAtOnce, started: () => finishers.length };
}

describe("SharedLoads (the viewer's reads of trace files)", () => {
  it("gives loads of the same file and version, asked while one is in flight, that one load's result", async () => {
    const loads = new SharedLoads(2);
    const control = controlledLoads();
    const results = Array.from({ length: 5 }, () => loads.load("a.json", "10:1", control.start("first")));
    await new Promise((resolve) => setImmediate(resolve));
    expect(control.started()).toBe(1);
    await control.finishAll();
    expect(await Promise.all(results)).toEqual(Array(5).fill("first"));
    // Once it settled, nothing is kept: the next request reads the file again.
    const again = loads.load("a.json", "10:1", control.start("second"));
    await control.finishAll();
    expect(await again).toBe("second");
  });

  it("loads a file again when its version changed (it was written since)", async () => {
    const loads = new SharedLoads(2);
    const control = controlledLoads();
    const before = loads.load("a.json", "10:1", control.start("old"));
    const after = loads.load("a.json", "12:2", control.start("new"));
    await control.finishAll();
    expect([await before, await after]).toEqual(["old", "new"]);
  });

  it("runs at most `concurrency` different loads at once; the others wait for a slot", async () => {
    const loads = new SharedLoads(2);
    const control = controlledLoads();
    const results = ["a", "b", "c", "d", "e"].map((name) => loads.load(`${name}.json`, "1:1", control.start(name)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(control.started()).toBe(2);
    await control.finishAll();
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "d", "e"]);
    expect(control.mostAtOnce()).toBe(2);
  });

  it("rejects every request sharing a failed load, and tries again on the next", async () => {
    const loads = new SharedLoads(1);
    const failing = () => Promise.reject(new Error("torn file"));
    const shared = [loads.load("a.json", "1:1", failing), loads.load("a.json", "1:1", failing)];
    for (const result of shared) await expect(result).rejects.toThrow("torn file");
    expect(await loads.load("a.json", "1:1", async () => "read")).toBe("read");
  });
});
