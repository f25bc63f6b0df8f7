import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { fakeIo } from "../helpers/fake-io.js";

const bookTrajectory = `[0] thought     Thought: 用户要比两城天气，先查北京。
[0] action      weather({"city":"北京"})
[0] observation 晴 24°C
[1] thought     Thought: 北京拿到了，再查上海。
[1] action      weather({"city":"上海"})
[1] observation 多云 27°C
[2] final       北京晴 24°C，上海多云 27°C，两地都适合出行。
最终回答: 北京晴 24°C，上海多云 27°C，两地都适合出行。
消息条数: 7
`;

describe("minagent CLI", () => {
  it("demo react prints the book's trajectory (5.1.4)", async () => {
    const { io, stdout, stderr } = fakeIo();
    expect(await main(["demo", "react"], io)).toBe(0);
    expect(stdout()).toBe(bookTrajectory);
    expect(stderr()).toBe("");
  });

  it("--help and demo --help say what exists", async () => {
    const top = fakeIo();
    expect(await main(["--help"], top.io)).toBe(0);
    expect(top.stdout()).toMatch(/minagent demo <name>/);
    expect(top.stdout()).toMatch(/react\s+the book's two-city weather example/);
    const demo = fakeIo();
    expect(await main(["demo", "--help"], demo.io)).toBe(0);
    expect(demo.stdout()).toMatch(/Usage: minagent demo <name>/);
    expect(demo.stdout()).toMatch(/no API key and no network/);
  });

  it("an unknown command or demo exits 2 with a message that says what to do", async () => {
    const unknown = fakeIo();
    expect(await main(["fly"], unknown.io)).toBe(2);
    expect(unknown.stderr()).toBe('minagent: unknown command "fly". Run "minagent --help" to see the commands.\n');
    const noDemo = fakeIo();
    expect(await main(["demo", "nope"], noDemo.io)).toBe(2);
    expect(noDemo.stderr()).toMatch(/no demo named "nope"[\s\S]*react/);
    const missing = fakeIo();
    expect(await main(["demo"], missing.io)).toBe(2);
    expect(missing.stderr()).toMatch(/name a demo/);
  });

  it("--version prints the package version", async () => {
    const { io, stdout } = fakeIo();
    expect(await main(["--version"], io)).toBe(0);
    expect(stdout()).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  const bin = new URL("../../dist/cli/bin.js", import.meta.url);
  it("the built bin runs the demo end to end", async () => {
    expect(existsSync(bin), "dist/ is missing: npm test builds it first (npm run build)").toBe(true);
    const { stdout } = await promisify(execFile)(process.execPath, [bin.pathname, "demo", "react"]);
    expect(stdout).toBe(bookTrajectory);
  });
});
