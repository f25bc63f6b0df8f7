import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const docs = readFileSync(new URL("../../../docs/tracing.md", import.meta.url), "utf8");
const section = docs.slice(docs.indexOf("## Trace viewer"), docs.indexOf("## Opt in per agent"));

describe("docs/tracing.md's Trace viewer section", () => {
  it("shows the screenshots the browser tests take (list, trace, search), and they exist", () => {
    const images = [...section.matchAll(/!\[[^\]]*\]\((images\/[^)]+\.png)\)/g)].map((match) => match[1] as string);
    expect(images).toEqual(["images/trace-viewer-list.png", "images/trace-viewer-trace.png", "images/trace-viewer-search.png"]);
    for (const image of images) expect(existsSync(new URL(`../../../docs/${image}`, import.meta.url)), image).toBe(true);
  });

  it("names the command, its options and every route of the API", () => {
    for (const text of [
      "minagent trace serve",
      "--port",
      "--open",
      "--max-trace-mb",
      "GET /api/traces`",
      "GET /api/traces/<file name>",
      "GET /api/events",
      "127.0.0.1",
    ])
      expect(section).toContain(text);
  });
});
