import { describe, expect, it } from "vitest";
import type { Message } from "../../src/core/types.js";
import { describeMcpToolResult, mcpResultImages } from "../../src/mcp/tool-result.js";
import { convertToBedrockMessages } from "../../src/models/bedrock/convert-to-bedrock-messages.js";
import { convertToGoogleContents } from "../../src/models/google/convert-to-google-contents.js";

// Where parts go when a turn has several results, and what a wire refuses that the contract suite does not reach.

const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const pdf = Buffer.from("%PDF-1.4 pages").toString("base64");

const twoResults: Message[] = [
  { role: "user", content: "Look at both." },
  {
    role: "assistant",
    content: "",
    toolCalls: [
      { id: "a", name: "shot", arguments: {} },
      { id: "b", name: "shot", arguments: {} },
    ],
  },
  { role: "tool", toolCallId: "a", content: "first", parts: [{ type: "image", mediaType: "image/png", data: png }] },
  {
    role: "tool",
    toolCallId: "b",
    content: "second",
    parts: [{ type: "document", mediaType: "application/pdf", data: pdf, name: "r.pdf" }],
  },
];

describe("parts of a turn's results", () => {
  it("Gemini: the images and documents follow all of the turn's function responses", () => {
    const { contents } = convertToGoogleContents(twoResults);
    const kinds = (contents.at(-1)?.parts ?? []).map((part) => (part.functionResponse ? "response" : part.inlineData ? "inline" : "other"));
    expect(kinds).toEqual(["response", "response", "inline", "inline"]);
  });

  it("Bedrock: the same PDF read twice gets two names, as Converse wants", () => {
    const read: Message[] = [
      {
        role: "user",
        content: "Two parts of one report",
        parts: [{ type: "document", mediaType: "application/pdf", data: pdf, name: "report.pdf" }],
      },
      { role: "assistant", content: "And the rest?" },
      { role: "user", content: "Here", parts: [{ type: "document", mediaType: "application/pdf", data: pdf, name: "report.pdf" }] },
    ];
    const names = convertToBedrockMessages(read).messages.flatMap((message) =>
      (message.content ?? []).flatMap((block) => ("document" in block && block.document ? [block.document.name] : [])),
    );
    expect(names).toEqual(["report", "report-2"]);
  });
});

describe("MCP image results", () => {
  it("attach an image whose bytes are what it says, and describe a mislabelled one", () => {
    const result = {
      content: [
        { type: "image", mimeType: "image/png", data: png },
        { type: "image", mimeType: "image/jpeg", data: png },
      ],
    };
    expect(mcpResultImages(result)).toEqual([{ type: "image", mediaType: "image/png", data: png }]);
    const text = describeMcpToolResult(result, { imagesAttached: true });
    expect(text).toMatch(/^\[image image\/png: attached\]\n\[image image\/jpeg, .*not shown/);
  });
});
