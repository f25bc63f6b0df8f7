import { describe, expect, it } from "vitest";
import { seatbeltProfile } from "../../../src/code/sandbox/seatbelt.js";

// The macOS profile cannot run here (no sandbox-exec on Linux): these tests hold its rules in the order Seatbelt reads
// them — the last rule that matches decides — so a later change cannot quietly open what an earlier rule closed.
const plan = {
  writable: ["/Users/ada/app", "/private/var/folders/x/T/minagent-sandbox-1/tmp"],
  protectedPaths: ["/Users/ada/app/.minagent", "/Users/ada/app/.git/hooks", "/Users/ada"],
  hiddenFiles: ["/Users/ada/app/.env"],
  hiddenDirectories: ["/Users/ada/.aws"],
  proxyPort: 50123,
  allowLocalBinding: false,
  allowUnixSockets: false,
};

describe("the Seatbelt profile", () => {
  it("writes only where allowed, then closes the control paths, hidden reads and the network but the proxy", () => {
    const rules = seatbeltProfile(plan).split("\n");
    const at = (prefix: string) => rules.findIndex((rule) => rule.startsWith(prefix));
    expect(rules.slice(0, 3)).toEqual(["(version 1)", "(allow default)", "(deny file-write*)"]);
    expect(rules[at("(allow file-write*")]).toContain(
      '(subpath "/Users/ada/app") (subpath "/private/var/folders/x/T/minagent-sandbox-1/tmp")',
    );
    expect(at("(deny file-write* (subpath")).toBeGreaterThan(at("(allow file-write*"));
    expect(rules[at("(deny file-write* (subpath")]).toContain('(subpath "/Users/ada/app/.git/hooks")');
    expect(rules[at("(deny file-read*")]).toBe('(deny file-read* (subpath "/Users/ada/.aws") (literal "/Users/ada/app/.env"))');
    expect(rules.slice(at("(deny network*)"))).toEqual(["(deny network*)", '(allow network-outbound (remote ip "localhost:50123"))']);
  });

  it("opens loopback and Unix sockets only when the settings say so, and quotes paths", () => {
    const profile = seatbeltProfile({
      ...plan,
      allowLocalBinding: true,
      allowUnixSockets: true,
      writable: ['/Users/ada/my "app"'],
      proxyPort: undefined,
    });
    expect(profile).toContain('(subpath "/Users/ada/my \\"app\\"")');
    expect(profile).toContain('(allow network-outbound (remote ip "localhost:*"))');
    expect(profile).toContain("(allow network* (remote unix-socket))");
    expect(seatbeltProfile(plan)).not.toContain("unix-socket");
  });
});
