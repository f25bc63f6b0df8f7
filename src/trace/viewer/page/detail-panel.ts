/// <reference lib="dom" />
import type { TraceSpan } from "../../trace.js";
import { h, highlighted } from "./dom.js";
import { formatCost, formatCount, formatDuration } from "./format.js";
import { type MessagePart, parseMessages, type TracedMessage } from "./messages.js";
import { numberOf, type Row, type TraceModel } from "./trace-model.js";

/** Attributes a section of the panel already shows; a run's others are listed as they are (a workflow id…). */
const shown = new Set([
  "gen_ai.operation.name",
  "gen_ai.provider.name",
  "gen_ai.request.model",
  "gen_ai.agent.name",
  "gen_ai.response.finish_reasons",
  "gen_ai.response.time_to_first_chunk",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gen_ai.usage.cache_read.input_tokens",
  "gen_ai.usage.cache_creation.input_tokens",
  "gen_ai.usage.reasoning.output_tokens",
  "gen_ai.input.messages",
  "gen_ai.output.messages",
  "gen_ai.tool.name",
  "gen_ai.tool.type",
  "gen_ai.tool.call.id",
  "gen_ai.tool.call.arguments",
  "gen_ai.tool.call.result",
  "error.type",
  "minagent.run.input",
  "minagent.run.final",
  "minagent.run.status",
  "minagent.run.converged",
  "minagent.run.turns",
  "minagent.run.id",
  "minagent.run.pending_count",
  "minagent.request.new_messages",
  "minagent.request.new_message_index",
  "minagent.request.message_count",
  "minagent.request.tool_names",
  "minagent.turn.index",
  "minagent.tool.interrupted",
  "minagent.session.unrecorded_calls",
]);

/**
 * Draws the selected span: what a person asks of it depends on its type. `query` is marked in its text. A span
 * of a shape the panel does not expect (a trace file is untrusted) is shown as its JSON, never as an error.
 */
export function renderDetail(model: TraceModel, index: number, query: string): HTMLElement {
  const row = model.rows[index];
  if (!row) return h("div.detail.empty", null, "Select a span to see its messages, arguments and results.");
  try {
    return spanDetail(model, row, index, query);
  } catch (error) {
    let json: string;
    try {
      json = JSON.stringify(row.span, null, 2) ?? String(row.span);
    } catch {
      json = String(row.span);
    }
    return h(
      "div.detail",
      null,
      h("h2", null, h("span.type-dot"), String(row.span.name)),
      h("p.muted", null, `This span could not be drawn (${error instanceof Error ? error.message : String(error)}); its JSON:`),
      code(json, query),
    );
  }
}

function spanDetail(model: TraceModel, row: Row, index: number, query: string): HTMLElement {
  const span = row.span;
  const error = span.status.code === "error" ? String(span.status.message) : undefined;
  const panel = h(
    "div.detail",
    { "data-span-type": span.type },
    h("h2", null, h("span.type-dot"), span.name, row.subagent ? h("span.badge", null, "subagent") : null),
    h(
      "div.facts",
      null,
      fact("type", span.type),
      fact("duration", formatDuration(span.durationMs)),
      fact("starts at", `+${formatDuration(span.startTime - model.start)}`),
      fact("status", statusOf(span, error)),
    ),
    error !== undefined ? h("div.error-box", null, highlighted(error, query)) : null,
    span.attributes["minagent.session.unrecorded_calls"] === true
      ? h(
          "p.muted.unrecorded",
          null,
          "This sub-agent's model and tool calls are not in the session file, only their tokens: this span carries them, priced at the session's model.",
        )
      : null,
  );
  panel.classList.toggle("is-error", error !== undefined);
  const sections =
    span.type === "model-call"
      ? modelCallSections(model, span, query)
      : span.type === "tool-call" || span.type === "tool-execution"
        ? toolSections(model, index, query)
        : span.type === "run"
          ? runSections(model, index, query)
          : turnSections(model, row);
  panel.append(...sections, allAttributes(span));
  return panel;
}

function statusOf(span: TraceSpan, error: string | undefined): string {
  if (error !== undefined) return span.attributes["minagent.tool.interrupted"] === true ? "✗ interrupted" : "✗ error";
  return span.attributes["minagent.tool.pending"] ? "⏸ awaits approval" : "✓ ok";
}

function modelCallSections(model: TraceModel, span: TraceSpan, query: string): HTMLElement[] {
  const a = span.attributes;
  const reasons = a["gen_ai.response.finish_reasons"];
  const firstChunk = a["gen_ai.response.time_to_first_chunk"];
  const tokens = h(
    "div.facts",
    null,
    fact("model", String(a["gen_ai.request.model"] ?? "–")),
    fact("stop reason", Array.isArray(reasons) ? reasons.join(", ") : "–"),
    fact("input tokens", formatCount(numberOf(a["gen_ai.usage.input_tokens"]))),
    fact("output tokens", formatCount(numberOf(a["gen_ai.usage.output_tokens"]))),
    a["gen_ai.usage.cache_read.input_tokens"] !== undefined
      ? fact("cache read", formatCount(numberOf(a["gen_ai.usage.cache_read.input_tokens"])))
      : null,
    a["gen_ai.usage.cache_creation.input_tokens"] !== undefined
      ? fact("cache write", formatCount(numberOf(a["gen_ai.usage.cache_creation.input_tokens"])))
      : null,
    a["gen_ai.usage.reasoning.output_tokens"] !== undefined
      ? fact("reasoning tokens", formatCount(numberOf(a["gen_ai.usage.reasoning.output_tokens"])))
      : null,
    fact("cost", formatCost(model.costs[span.spanId])),
    typeof firstChunk === "number" ? fact("first chunk after", formatDuration(firstChunk * 1000)) : null,
  );
  const added = a["minagent.request.new_messages"] ?? a["gen_ai.input.messages"];
  const output = a["gen_ai.output.messages"];
  const tools = a["minagent.request.tool_names"];
  return [
    tokens,
    section(
      a["gen_ai.input.messages"] !== undefined ? "Messages sent" : "Messages added",
      typeof added === "string" ? messagesView(added, query) : h("p.muted", null, "Not recorded (payloads off)."),
    ),
    section("Answer", typeof output === "string" ? messagesView(output, query) : h("p.muted", null, "Not recorded.")),
    Array.isArray(tools) && tools.length > 0 ? section("Tools offered", h("p.muted", null, tools.join(", "))) : h("span"),
  ];
}

function toolSections(model: TraceModel, index: number, query: string): HTMLElement[] {
  const row = model.rows[index] as Row;
  // A tool call's client span has the arguments; its execution (the child) has the result.
  const client = row.span.type === "tool-call" ? row.span : (model.rows[row.parent]?.span ?? row.span);
  const execution = row.span.type === "tool-execution" ? row.span : model.rows[index + 1]?.span;
  const result = execution?.attributes["gen_ai.tool.call.result"];
  const failed = execution?.status.code === "error" || row.span.status.code === "error";
  const args = client.attributes["gen_ai.tool.call.arguments"];
  return [
    h(
      "div.facts",
      null,
      fact("tool", String(client.attributes["gen_ai.tool.name"] ?? row.span.name)),
      fact("call id", String(client.attributes["gen_ai.tool.call.id"] ?? "–")),
      execution && execution !== client ? fact("ran for", formatDuration(execution.durationMs)) : null,
      execution && execution !== client ? fact("waited", formatDuration(Math.max(0, execution.startTime - client.startTime))) : null,
    ),
    section("Arguments", typeof args === "string" ? code(prettyJson(args), query) : h("p.muted", null, "Not recorded.")),
    section(
      failed ? "Result (error)" : "Result",
      typeof result === "string" ? code(result, query, failed) : h("p.muted", null, "Not recorded."),
    ),
  ];
}

function runSections(model: TraceModel, index: number, query: string): HTMLElement[] {
  const span = (model.rows[index] as Row).span;
  const a = span.attributes;
  const input = a["minagent.run.input"];
  const final = a["minagent.run.final"];
  const extra = Object.entries(a).filter(([key]) => !shown.has(key));
  return [
    h(
      "div.facts",
      null,
      fact("run status", String(a["minagent.run.status"] ?? (span.status.code === "error" ? "failed" : "–"))),
      fact("agent", String(a["gen_ai.agent.name"] ?? "–")),
      fact("model", String(a["gen_ai.request.model"] ?? "–")),
      fact("turns", String(a["minagent.run.turns"] ?? "–")),
      fact("input tokens", formatCount(numberOf(a["gen_ai.usage.input_tokens"]))),
      fact("output tokens", formatCount(numberOf(a["gen_ai.usage.output_tokens"]))),
      fact("cost", formatCost(model.subtreeCost(index))),
      a["minagent.run.pending_count"] !== undefined ? fact("awaiting approval", String(a["minagent.run.pending_count"])) : null,
      a["minagent.run.id"] !== undefined ? fact("run id", String(a["minagent.run.id"])) : null,
    ),
    section("Input", typeof input === "string" ? code(input, query) : h("p.muted", null, "Not recorded.")),
    section("Final answer", typeof final === "string" ? code(final, query) : h("p.muted", null, "None (the run did not complete).")),
    extra.length > 0 ? section("Run attributes", attributeTable(extra)) : h("span"),
  ];
}

function turnSections(model: TraceModel, row: Row): HTMLElement[] {
  const start = model.indexOf(row.span.spanId) ?? 0;
  let calls = 0;
  let tools = 0;
  for (let index = start + 1; index < row.end; index++) {
    const type = model.rows[index]?.span.type;
    if (type === "model-call") calls++;
    if (type === "tool-call") tools++;
  }
  return [
    h(
      "div.facts",
      null,
      fact("turn", String(row.span.attributes["minagent.turn.index"] ?? "–")),
      fact("model calls", String(calls)),
      fact("tool calls", String(tools)),
      row.span.attributes["minagent.turn.resumed"] ? fact("resumed", "yes") : null,
      fact("cost", formatCost(model.subtreeCost(start))),
    ),
  ];
}

/** Messages as the conversation reads: role, text, thinking, tool calls and results. */
function messagesView(json: string, query: string): HTMLElement {
  const messages = parseMessages(json);
  if (!messages) return code(json, query);
  if (messages.length === 0) return h("p.muted", null, "No new messages.");
  return h("div.messages", null, ...messages.map((message) => messageView(message, query)));
}

// A message's JSON comes from a file: every field is checked before it is used (a role that is not a string,
// text that is a number, a tool call without arguments are shown, not thrown on).
function messageView(message: TracedMessage, query: string): HTMLElement {
  if (typeof message !== "object" || message === null) return code(jsonText(message), query);
  const role = typeof message.role === "string" ? message.role : message.role === undefined ? "(no role)" : jsonText(message.role);
  const parts: unknown[] = Array.isArray(message.parts) ? message.parts : message.parts === undefined ? [] : [message.parts];
  return h(
    `div.message.role-${role.replace(/[^a-z]/g, "")}` as "div",
    null,
    h("div.role", null, role, message.finish_reason ? h("span.muted", null, ` · ${textOf(message.finish_reason)}`) : null),
    ...parts.map((part) => partView(part, query)),
  );
}

function partView(value: unknown, query: string): HTMLElement {
  if (typeof value !== "object" || value === null) return code(jsonText(value), query);
  const part = value as MessagePart;
  switch (part.type) {
    case "text":
      return h("div.text", null, highlighted(textOf(part.content), query));
    case "reasoning":
      return h(
        "details.thinking",
        { open: true },
        h("summary", null, "Thinking"),
        h("div.text", null, highlighted(textOf(part.content), query)),
      );
    case "tool_call":
      return h(
        "div.tool-call-part",
        null,
        h("span.call-name", null, `→ ${textOf(part.name)}`),
        h("span.muted", null, ` ${textOf(part.id)}`),
        "arguments" in part ? code(jsonText(part.arguments, 2), query) : h("p.muted", null, "No arguments recorded."),
      );
    case "tool_call_response":
      return h("div.tool-result-part", null, h("span.muted", null, `result of ${textOf(part.id)}`), code(textOf(part.response), query));
    case "blob":
      return blobView(part);
    default:
      return code(jsonText(part), query);
  }
}

const thumbnailTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** An image (a thumbnail when its bytes came with it: a session's) or a document, by its type, size and hash. */
function blobView(part: Extract<MessagePart, { type: "blob" }>): HTMLElement {
  const size = typeof part.size_bytes === "number" ? `, ${formatCount(part.size_bytes)} bytes` : "";
  const hash = typeof part.sha256 === "string" ? ` · sha256 ${part.sha256.slice(0, 12)}…` : "";
  const label = h(
    "span.muted",
    null,
    `${textOf(part.modality)} ${textOf(part.mime_type)}${size}${hash}${part.uri ? ` · ${textOf(part.uri)}` : ""}`,
  );
  // Only bytes that are base64 of a known image type become a picture.
  const showable = typeof part.content === "string" && thumbnailTypes.has(part.mime_type) && /^[A-Za-z0-9+/]+=*$/.test(part.content);
  if (!showable) return h("div.blob-part", null, label);
  return h(
    "div.blob-part",
    null,
    h("img.thumbnail", { src: `data:${part.mime_type};base64,${part.content}`, alt: "an image of the message" }),
    label,
  );
}

/** A string as it is; anything else as its JSON ("" for nothing). */
function textOf(value: unknown): string {
  return typeof value === "string" ? value : jsonText(value);
}

/** JSON text of any value: never undefined, never throws. */
function jsonText(value: unknown, indent?: number): string {
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, indent) ?? String(value);
  } catch {
    return String(value);
  }
}

function allAttributes(span: TraceSpan): HTMLElement {
  return h(
    "details.all-attributes",
    null,
    h("summary", null, `All attributes (${Object.keys(span.attributes).length})`),
    attributeTable(Object.entries(span.attributes)),
    h("p.muted", null, `span ${span.spanId}${span.parentSpanId ? ` · parent ${span.parentSpanId}` : ""} · ${span.kind}`),
  );
}

function attributeTable(entries: [string, unknown][]): HTMLElement {
  return h(
    "table.attributes",
    null,
    ...entries.map(([key, value]) =>
      h("tr", null, h("th", null, key), h("td", null, typeof value === "string" ? value : JSON.stringify(value))),
    ),
  );
}

function section(title: string, body: HTMLElement): HTMLElement {
  return h("section", null, h("h3", null, title), body);
}

function fact(label: string, value: string): HTMLElement {
  return h("div.fact", null, h("span.fact-label", null, label), h("span.fact-value", null, value));
}

function code(text: string, query: string, error = false): HTMLElement {
  return h(error ? "pre.code.error-text" : "pre.code", null, highlighted(text, query));
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
