import { describe, expect, it } from "vitest";
import { compileCommandPattern, compilePathPattern, parsePermissionRule } from "../../../src/code/permissions/index.js";
import { UsageError } from "../../../src/index.js";

const bases = { root: "/work", home: "/home/ada" };
const parse = (text: unknown, list: "allow" | "ask" | "deny" = "allow") =>
  parsePermissionRule(text, list, "/work/.minagent/settings.json", bases);

describe("rule syntax: Tool and Tool(specifier)", () => {
  it("reads a bare tool name, a specifier, and Tool(*) as the bare tool", () => {
    expect(parse("Bash")).toMatchObject({ tool: "Bash", specifier: undefined, target: { kind: "tool" }, list: "allow" });
    expect(parse("Bash(npm test)")).toMatchObject({ tool: "Bash", specifier: "npm test", target: { kind: "command" } });
    expect(parse("Bash(*)")).toMatchObject({ tool: "Bash", target: { kind: "tool" } });
    expect(parse("Read(*)")).toMatchObject({ tool: "Read", target: { kind: "tool" } });
    expect(parse("Read(**)")).toMatchObject({ tool: "Read", target: { kind: "tool" } });
    expect(parse("  Edit(src/**)  ")).toMatchObject({ text: "Edit(src/**)", tool: "Edit", target: { kind: "path" } });
    expect(parse("TodoWrite", "deny")).toMatchObject({ tool: "TodoWrite", list: "deny", source: "/work/.minagent/settings.json" });
  });

  it("reads MCP names: a tool, a whole server, and server__* as the server", () => {
    expect(parse("mcp__github__create_issue")).toMatchObject({ tool: "mcp__github__create_issue", target: { kind: "tool" } });
    expect(parse("mcp__github")).toMatchObject({ tool: "mcp__github", target: { kind: "server", prefix: "mcp__github__" } });
    expect(parse("mcp__github__*")).toMatchObject({ tool: "mcp__github", target: { kind: "server", prefix: "mcp__github__" } });
    expect(parse("mcp__my_server")).toMatchObject({ target: { kind: "server", prefix: "mcp__my_server__" } });
  });

  it.each([
    ["", "names no tool"],
    ["(npm test)", "names no tool"],
    ["Bash(", 'must end with ")"'],
    ["Bash(npm test", 'must end with ")"'],
    ["Bash()", "empty specifier"],
    ["Bash( )", "empty specifier"],
    ["Ba sh", "is not a tool name"],
    ["Bash)", 'a ")" has no "("'],
    ["*", "is not a tool name"],
    ["Bash(npm:* test)", '":*" may only end the pattern'],
    ["Bash(:*)", '":*" needs a command'],
    ["Read(!secrets/**)", "negated patterns"],
    ["Read(#x)", "comment"],
    ["TodoWrite(anything)", "TodoWrite takes no specifier"],
    ["mcp__github(x)", "mcp__github takes no specifier"],
    ["WebFetch(https://example.com/)", "WebFetch takes a domain"],
  ])("%j is a load error that names the rule, the list and the file", (text, why) => {
    const error = (() => {
      try {
        parse(text, "deny");
      } catch (caught) {
        return caught as Error;
      }
      throw new Error("no error");
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(`Invalid permission rule ${JSON.stringify(text)} in "deny" of /work/.minagent/settings.json`);
    expect(error.message).toContain(why);
  });

  it("a rule that is not a string is a load error too", () => {
    expect(() => parse(42)).toThrow(/Invalid permission rule 42 in "allow" of .*a rule must be a string, got number/);
    expect(() => parse(null)).toThrow(/got null/);
  });
});

describe("Bash specifiers", () => {
  const matches = (pattern: string, command: string) => compileCommandPattern(pattern)(command);

  it("without a wildcard, the command must be exactly the same (runs of blanks count as one)", () => {
    expect(matches("npm test", "npm test")).toBe(true);
    expect(matches("npm  test ", "npm test")).toBe(true);
    expect(matches("npm test", "npm test --watch")).toBe(false);
    expect(matches("npm test", "npm tests")).toBe(false);
    expect(matches("npm test", "xnpm test")).toBe(false);
  });

  it("legacy prefix:* matches the prefix and the prefix followed by a space, on a word boundary", () => {
    expect(matches("npm run test:*", "npm run test")).toBe(true);
    expect(matches("npm run test:*", "npm run test -- --watch")).toBe(true);
    expect(matches("npm run test:*", "npm run testing")).toBe(false);
    expect(matches("npm run test:*", "npm run tes")).toBe(false);
    expect(matches("curl http://site.com/:*", "curl http://site.com/page")).toBe(false);
    expect(matches("curl http://site.com/:*", "curl http://site.com/ -o x")).toBe(true);
  });

  it("a single trailing ' *' may match nothing, so `ls *` matches `ls` but not `lsof`; `ls*` matches both", () => {
    expect(matches("ls *", "ls")).toBe(true);
    expect(matches("ls *", "ls -la")).toBe(true);
    expect(matches("ls *", "lsof")).toBe(false);
    expect(matches("ls*", "lsof")).toBe(true);
    expect(matches("git diff *", "git diff --stat HEAD~1")).toBe(true);
    expect(matches("git diff *", "git difftool")).toBe(false);
  });

  it("`*` elsewhere matches any characters, spaces and newlines included", () => {
    expect(matches("git * main", "git checkout main")).toBe(true);
    expect(matches("git * main", "git merge --no-ff main")).toBe(true);
    expect(matches("git * main", "git checkout mainline")).toBe(false);
    expect(matches("* --version", "node --version")).toBe(true);
    expect(matches("* install", "npm install")).toBe(true);
    expect(matches("echo *", "echo 'two\nlines'")).toBe(true);
    expect(matches("npm * --save *", "npm i x --save -E")).toBe(true);
  });

  it("`\\*` is a literal star, and regular-expression characters are literal", () => {
    expect(matches("echo \\*", "echo *")).toBe(true);
    expect(matches("echo \\*", "echo x")).toBe(false);
    expect(matches("grep a.b (x)", "grep a.b (x)")).toBe(true);
    expect(matches("grep a.b", "grep aXb")).toBe(false);
  });
});

describe("path specifiers (gitignore-style, four kinds of start)", () => {
  const matches = (pattern: string, path: string) => compilePathPattern(pattern, bases).matches(path);

  it("//path is absolute, ~/path starts at home, /path at the workspace root", () => {
    expect(matches("//etc/**", "/etc/passwd")).toBe(true);
    expect(matches("//etc/**", "/work/etc/passwd")).toBe(false);
    expect(matches("~/.ssh/**", "/home/ada/.ssh/id_rsa")).toBe(true);
    expect(matches("~/.ssh/**", "/work/.ssh/id_rsa")).toBe(false);
    expect(matches("~", "/home/ada/notes.txt")).toBe(true);
    expect(matches("/src/**/*.ts", "/work/src/a/b.ts")).toBe(true);
    expect(matches("/src/**/*.ts", "/src/a/b.ts")).toBe(false);
    expect(matches("/src/**/*.ts", "/work/lib/src/b.ts")).toBe(false);
  });

  it("path and ./path start at the workspace root; without a slash a name matches at any depth, ./ anchors it", () => {
    expect(matches("*.env", "/work/.env")).toBe(true); // gitignore's `*` matches nothing, and a leading dot
    expect(matches("*.env", "/work/prod.env")).toBe(true);
    expect(matches("*.env", "/work/deploy/prod.env")).toBe(true);
    expect(matches(".env", "/work/a/b/.env")).toBe(true);
    expect(matches("./.env", "/work/.env")).toBe(true);
    expect(matches("./.env", "/work/a/.env")).toBe(false);
    expect(matches("./secrets/**", "/work/secrets/key.pem")).toBe(true);
    expect(matches("secrets/**", "/work/secrets/a/b")).toBe(true);
    expect(matches("secrets/**", "/work/x/secrets/a")).toBe(false);
    expect(matches("*.env", "/elsewhere/prod.env")).toBe(false);
  });

  it("a matched directory matches everything inside it, as in .gitignore", () => {
    expect(matches("secrets", "/work/secrets/key.pem")).toBe(true);
    expect(matches("src/*", "/work/src/a/b.ts")).toBe(true);
    expect(matches("build/", "/work/build/out.js")).toBe(true);
  });

  it("../ moves the start up; paths above a start never match", () => {
    expect(matches("../shared/**", "/shared/x.ts")).toBe(true);
    expect(matches("../shared/**", "/work/shared/x.ts")).toBe(false);
    expect(matches("src/**", "/src/x.ts")).toBe(false);
    expect(matches("src/**", "/work/../src/x.ts")).toBe(false);
  });

  it("a search matches a directory when the pattern covers what is inside it", () => {
    const secrets = compilePathPattern("./secrets/**", bases);
    expect(secrets.matchesDirectory("/work/secrets")).toBe(true);
    expect(secrets.matchesDirectory("/work/secrets/nested")).toBe(true);
    expect(secrets.matchesDirectory("/work")).toBe(false);
    expect(compilePathPattern("*.env", bases).matchesDirectory("/work/config")).toBe(false);
  });
});

describe("WebFetch(domain:…)", () => {
  it("names a host, which the sandbox's proxy lets through (Claude Code's syntax)", () => {
    expect(parse("WebFetch(domain:Registry.npmjs.org)", "allow").target).toEqual({ kind: "domain", domain: "registry.npmjs.org" });
    expect(parse("WebFetch(domain:localhost:8080)", "allow").target).toEqual({ kind: "domain", domain: "localhost:8080" });
  });
});
