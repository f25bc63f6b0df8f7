import { describe, expect, it } from "vitest";
import type { LoadedSettings } from "../../../src/code/settings/load-settings.js";
import { hooksDisabled, settingsEnvironment, settingsValue } from "../../../src/code/settings/session-settings.js";

const loaded = (...files: [string, Record<string, unknown>][]): LoadedSettings => ({
  files: files.map(([path, settings]) => ({ path, level: "project", settings })),
  locations: files.map(([path]) => ({ path, level: "project" })),
});

describe("settings that shape the whole session", () => {
  it("env: merged in order, numbers and booleans as text, a bad entry one warning naming the file and key", () => {
    const { env, warnings } = settingsEnvironment(
      loaded(
        ["/u/.claude/settings.json", { env: { NODE_ENV: "development", MAX_THINKING_TOKENS: 8000 } }],
        ["/p/.claude/settings.json", { env: { NODE_ENV: "test", DEBUG: true, "BAD-NAME": "x", NESTED: { a: 1 } } }],
        ["/p/.minagent/settings.json", { env: ["NODE_ENV=prod"] }],
      ),
    );
    expect(env).toEqual({ NODE_ENV: "test", MAX_THINKING_TOKENS: "8000", DEBUG: "true" });
    expect(warnings).toEqual([
      '/p/.claude/settings.json: "env.BAD-NAME" is not a variable name (letters, digits and _); ignored',
      '/p/.claude/settings.json: "env.NESTED" must be a string, not object; ignored',
      '/p/.minagent/settings.json: "env" must be an object of variable names and values, e.g. { "NODE_ENV": "test" }; ignored',
    ]);
  });

  it("a top-level value comes from the most specific file that has it; disableAllHooks only when true", () => {
    const settings = loaded(["/u.json", { model: "opus", disableAllHooks: true }], ["/p.json", { disableAllHooks: false }]);
    expect(settingsValue(settings, "model")).toEqual({ value: "opus", path: "/u.json" });
    expect(settingsValue(settings, "statusLine")).toBeUndefined();
    expect(hooksDisabled(settings)).toBe(false);
    expect(hooksDisabled(loaded(["/p.json", { disableAllHooks: true }]))).toBe(true);
  });
});
