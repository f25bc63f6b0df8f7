import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { findMentionWord, MentionCompleter, rankMentions } from "../../src/cli/code/interactive/mention-completion.js";

describe("ranking @ matches", () => {
  const paths = [
    "src/",
    "src/format/",
    "src/format/math.js",
    "src/util/",
    "src/util/helpers.js",
    "math.js",
    "lib/mathematics.ts",
    "README.md",
  ];

  test("a name that starts with the query comes first, the shorter path first among equals", () => {
    const ranked = rankMentions(paths, "mat");
    expect(ranked[0]).toBe("math.js");
    // Names that start with "mat" before one that only holds it (format).
    expect(ranked.slice(1, 3).sort()).toEqual(["lib/mathematics.ts", "src/format/math.js"]);
    expect(ranked.indexOf("src/format/")).toBeGreaterThan(2);
  });

  test("a fuzzy subsequence across folders: s/u/h is src/util/helpers.js", () => {
    expect(rankMentions(paths, "s/u/h")[0]).toBe("src/util/helpers.js");
    expect(rankMentions(paths, "sr/ut")[0]).toBe("src/util/");
    expect(rankMentions(paths, "xyz")).toEqual([]);
  });

  test("with nothing typed after @, the top level first", () => {
    expect(rankMentions(paths, "").slice(0, 3)).toEqual(["src/", "math.js", "README.md"]);
  });
});

describe("the @ word at the cursor", () => {
  test("after a space or a bracket, up to the cursor; the rest of the word is replaced too", () => {
    expect(findMentionWord({ text: "see @src/a", cursor: 10 })).toEqual({ start: 4, end: 10, query: "src/a" });
    expect(findMentionWord({ text: "(@src/a.ts) ok", cursor: 5 })).toEqual({ start: 1, end: 10, query: "src" });
    expect(findMentionWord({ text: 'open @"my fo', cursor: 12 })).toEqual({ start: 5, end: 12, query: "my fo" });
  });

  test("an e-mail address, a finished word or a resource is no @path word", () => {
    expect(findMentionWord({ text: "me@example.com", cursor: 14 })).toBeUndefined();
    expect(findMentionWord({ text: "@src/a.ts next", cursor: 14 })).toBeUndefined();
  });
});

describe("MentionCompleter", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "minagent-mention-completion-"));
    for (const file of ["math.js", "my notes/todo.md", "src/util/helpers.js", "dist/math.js", "secret/key.txt"]) {
      await mkdir(dirname(join(root, file)), { recursive: true });
      await writeFile(join(root, file), "x\n");
    }
    await writeFile(join(root, ".gitignore"), "dist/\n");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const indexed = async (options: { maxFiles?: number } = {}) => {
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const completer = new MentionCompleter({ root, isHidden: (path) => path.includes("secret"), onIndexed: () => done(), ...options });
    // Nothing is walked before an @ word is at the cursor; the first one starts the walk.
    expect(completer.hint({ text: "hello", cursor: 5 })).toBeUndefined();
    expect(completer.hint({ text: "@", cursor: 1 })).toBe("@ looking for files…");
    await finished;
    return completer;
  };

  test("the hint lists the best matches; ignored and hidden files are not offered", async () => {
    const completer = await indexed();
    expect(completer.hint({ text: "@mat", cursor: 4 })).toBe("@math.js");
    expect(completer.hint({ text: "@key", cursor: 4 })).toBe("@ no file or folder matches key");
    expect(completer.hint({ text: "@github:repo://x", cursor: 16 })).toBeUndefined();
  });

  test("Tab completes to the first match, and again to the next; a path with a space is quoted", async () => {
    const completer = await indexed();
    const first = completer.complete({ text: "see @s/u and", cursor: 8 });
    expect(first).toEqual({ text: "see @src/util/ and", cursor: 14 });
    const second = completer.complete(first as { text: string; cursor: number });
    expect(second).toEqual({ text: "see @src/util/helpers.js and", cursor: 25 });
    expect(completer.complete({ text: "@todo", cursor: 5 })).toEqual({ text: '@"my notes/todo.md" ', cursor: 20 });
    // A quoted folder leaves the cursor inside its quotes, to go on typing into it.
    expect(completer.complete({ text: "@my", cursor: 3 })).toEqual({ text: '@"my notes/"', cursor: 11 });
    expect(findMentionWord({ text: '@"my notes/"', cursor: 11 })).toEqual({ start: 0, end: 12, query: "my notes/" });
  });

  test("a huge workspace is indexed only up to its cap", async () => {
    const completer = await indexed({ maxFiles: 1 });
    const offered = ["math.js", "todo", "helpers", "gitignore"].filter((query) =>
      completer.complete({ text: `@${query}`, cursor: query.length + 1 }),
    );
    expect(offered).toHaveLength(1);
  });
});
