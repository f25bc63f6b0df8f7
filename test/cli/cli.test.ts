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
Final answer: 北京晴 24°C，上海多云 27°C，两地都适合出行。
Messages: 7
`;

describe("minagent CLI", () => {
  it("demo react prints the book's trajectory (5.1.4), labelled in English, or in Chinese for a Chinese locale", async () => {
    const { io, stdout, stderr } = fakeIo({ LANG: "en_US.UTF-8" });
    expect(await main(["demo", "react"], io)).toBe(0);
    expect(stdout()).toBe(bookTrajectory);
    expect(stderr()).toBe("");
    const chinese = fakeIo({ LANG: "en_US.UTF-8", LC_ALL: "zh_CN.UTF-8" });
    expect(await main(["demo", "react"], chinese.io)).toBe(0);
    expect(chinese.stdout()).toBe(bookTrajectory.replace("Final answer:", "最终回答:").replace("Messages:", "消息条数:"));
    // LC_MESSAGES counts when LC_ALL is not set, before LANG.
    const messages = fakeIo({ LANG: "zh_CN.UTF-8", LC_MESSAGES: "C" });
    expect(await main(["demo", "react"], messages.io)).toBe(0);
    expect(messages.stdout()).toBe(bookTrajectory);
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
    const env = { ...process.env, LC_ALL: "", LC_MESSAGES: "", LANG: "C.UTF-8" };
    const { stdout } = await promisify(execFile)(process.execPath, [bin.pathname, "demo", "react"], { env });
    expect(stdout).toBe(bookTrajectory);
  });
});
