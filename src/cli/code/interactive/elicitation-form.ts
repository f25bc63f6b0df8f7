import type { McpElicitationRequest, McpElicitationResult, McpElicitationValue } from "../../../mcp/index.js";
import { openInBrowser } from "../../open-in-browser.js";
import { type Choice, chooseOne } from "./choice-list.js";
import { type ElicitationField, parseChoiceNumbers, parseFieldText, readElicitationFields } from "./elicitation-fields.js";
import { countInputRows, readLine } from "./line-editor.js";
import type { Terminal } from "./terminal.js";
import { printable } from "./text-width.js";

/** What the form needs of the session: the terminal, and lines that stay on screen or are printed after it. */
export type ElicitationHost = {
  terminal: Terminal;
  keep: (text: string) => void;
  note: (text: string) => void;
};

/** Escape or Ctrl-C in the form: the person dismissed it. */
class Cancelled extends Error {}

const cancelled: McpElicitationResult = { action: "cancel" };

/**
 * Puts a server's elicitation to the person. A form is asked field by field (defaults filled in, required fields
 * and the schema's limits checked as they are typed), then sent or declined; a URL is shown, and opened only if the
 * person asks. Escape cancels. A form this terminal cannot show is declined, with a note naming the server.
 */
export async function askElicitation(host: ElicitationHost, request: McpElicitationRequest): Promise<McpElicitationResult> {
  const { terminal } = host;
  const { style } = terminal;
  const server = `MCP server "${request.server}"`;
  if (request.mode === "url") return askUrl(host, request);
  const read = readElicitationFields(request.requestedSchema);
  if ("unsupported" in read) {
    host.note(style.yellow(`  ${server} asked for input this session cannot show (${read.unsupported}); it was declined.`));
    return { action: "decline" };
  }
  host.keep([style.bold(`${server} asks for information:`), `  ${printable(request.message)}`].join("\n"));
  const start = await chooseOne(terminal, {
    title: [],
    choices: [
      { label: `Fill in the form (${read.fields.length} field${read.fields.length === 1 ? "" : "s"})`, key: "f", value: "fill" },
      { label: `No, decline (${request.server} is told you declined)`, key: "n", value: "decline" },
    ],
    footer: "↑↓ Enter, or the number · Esc: cancel",
    signal: request.signal,
  });
  if ("cancelled" in start) return cancelled;
  if (start.value === "decline") return { action: "decline" };
  const content: Record<string, McpElicitationValue> = {};
  try {
    for (const field of read.fields) {
      const value = await askField(host, field, request.signal);
      if (value !== undefined) content[field.name] = value;
    }
  } catch (error) {
    if (error instanceof Cancelled) return cancelled;
    throw error;
  }
  const send = await chooseOne(terminal, {
    title: [style.bold(`Send these answers to ${request.server}?`)],
    choices: [
      { label: "Yes, send them", key: "y", value: "send" },
      { label: "No, decline", key: "n", value: "decline" },
    ],
    footer: "Esc: cancel",
    signal: request.signal,
  });
  if ("cancelled" in send) return cancelled;
  return send.value === "send" ? { action: "accept", content } : { action: "decline" };
}

async function askUrl(host: ElicitationHost, request: Extract<McpElicitationRequest, { mode: "url" }>): Promise<McpElicitationResult> {
  const { terminal } = host;
  const { style } = terminal;
  // The URL stays on screen, so that the person can copy it; it is opened only on their word.
  host.keep(
    [
      style.bold(`MCP server "${request.server}" asks you to open a link:`),
      `  ${printable(request.message)}`,
      `  ${printable(request.url)}`,
    ].join("\n"),
  );
  const outcome = await chooseOne(terminal, {
    title: [],
    choices: [
      { label: "Open it in the browser", key: "o", value: "open" },
      { label: "I will open it myself", key: "y", value: "accept" },
      { label: "No, decline", key: "n", value: "decline" },
    ],
    footer: "↑↓ Enter, or the number · Esc: cancel",
    signal: request.signal,
  });
  if ("cancelled" in outcome) return cancelled;
  if (outcome.value === "decline") return { action: "decline" };
  // The session runs in this process: its environment is the person's (their $BROWSER).
  if (outcome.value === "open")
    openInBrowser(request.url, { env: process.env, onFailure: (message) => host.note(style.yellow(`  ${message}`)) });
  return { action: "accept" };
}

/** Asks one field until its answer is valid; `undefined` leaves an optional field out. Throws Cancelled on Escape. */
async function askField(host: ElicitationHost, field: ElicitationField, signal: AbortSignal): Promise<McpElicitationValue | undefined> {
  const { terminal } = host;
  const { style } = terminal;
  const label = `${field.label}${field.required ? " *" : ""}`;
  if (field.kind === "boolean" || field.kind === "choice") {
    const options: Choice<McpElicitationValue | undefined>[] =
      field.kind === "boolean"
        ? [
            { label: "Yes", key: "y", value: true },
            { label: "No", key: "n", value: false },
          ]
        : field.options.map((option) => ({ label: option.label, value: option.value }));
    if (!field.required) options.push({ label: "(leave empty)", value: undefined });
    const selected = Math.max(
      0,
      options.findIndex((option) => option.value === field.default),
    );
    const outcome = await chooseOne(terminal, {
      title: [`  ${style.bold(label)}${field.description ? style.dim(`  ${printable(field.description)}`) : ""}`],
      choices: options,
      selected,
      footer: "Esc: cancel the form",
      signal,
    });
    if ("cancelled" in outcome) throw new Cancelled();
    terminal.write(`  ${label} › ${outcome.value === undefined ? style.dim("(empty)") : shown(field, outcome.value)}\r\n`);
    return outcome.value;
  }
  if (field.kind === "choices")
    host.keep(field.options.map((option, index) => style.dim(`    ${index + 1}. ${printable(option.label)}`)).join("\n"));
  const prompt =
    field.kind === "choices" ? `  ${label} (numbers, e.g. 1,3) › ` : `  ${label}${field.kind === "text" ? "" : ` (${field.kind})`} › `;
  let initial =
    field.kind === "choices"
      ? (Array.isArray(field.default) ? field.default : [])
          .map((value) => field.options.findIndex((option) => option.value === value) + 1)
          .join(",")
      : field.default === undefined
        ? ""
        : String(field.default);
  let problem: string | undefined;
  for (;;) {
    const answer = await readLine<{ kind: "cancel" }>(terminal, {
      prompt,
      initial,
      hint: () => (problem ? style.yellow(problem) : field.description && printable(field.description)),
      keys: { escape: () => ({ kind: "cancel" }), "ctrl-c": () => ({ kind: "cancel" }) },
      signal,
    });
    if (answer.kind !== "submit") throw new Cancelled();
    const parsed = field.kind === "choices" ? parseChoiceNumbers(field, answer.text) : parseFieldText(field, answer.text);
    if ("value" in parsed) return parsed.value;
    // Asked again in the same place, with what was typed and why it does not do.
    terminal.eraseRowsAbove(countInputRows(prompt, answer.text, terminal.columns));
    problem = parsed.problem;
    initial = answer.text;
  }
}

function shown(field: ElicitationField, value: McpElicitationValue): string {
  if (field.kind === "boolean") return value ? "Yes" : "No";
  if (field.kind === "choice") return field.options.find((option) => option.value === value)?.label ?? String(value);
  return String(value);
}
