import type { ApprovalRequest, CodingAgent } from "../../../code/coding-agent.js";
import { mcpSamplingName } from "../../../code/create-session-sampler.js";
import type { PermissionMode } from "../../../code/permissions/index.js";
import type { ApprovalDecision } from "../../../core/run-state.js";
import type { McpElicitationRequest, McpElicitationResult } from "../../../mcp/index.js";
import { allowRuleLine, rememberOwnProjectSettings } from "../project-trust.js";
import { beforeAsking, localSettingsFile, networkRequestName, type SessionRules } from "../session-rules.js";
import { describeMcpHints } from "../start-mcp-servers.js";
import { describeToolCall } from "../tool-line.js";
import { computeFileChange, formatFileChange } from "./change-preview.js";
import { type Choice, chooseOne } from "./choice-list.js";
import { askElicitation } from "./elicitation-form.js";
import { countInputRows, readLine } from "./line-editor.js";
import type { Terminal } from "./terminal.js";
import { flattenText, printable, truncateToWidth } from "./text-width.js";

type Answer = "yes" | "always" | "save" | "always-server" | "save-server" | "no" | "plan-accept-edits" | "plan-default";

/** What the approval prompts need from the session around them. */
export type ApprovalHost = {
  terminal: Terminal;
  agent: () => CodingAgent;
  rules: () => SessionRules;
  /** Stops the current turn (Escape or Ctrl-C in a prompt). */
  interrupt: () => void;
  /** Called before a prompt is drawn (end a half-written line, hold the run's output) and after it is gone. */
  onOpen: () => void;
  onClose: () => void;
  /** Writes lines that stay on screen above the prompt (the plan). */
  keep: (text: string) => void;
  /** A line to print once the prompt is gone (a rule added, a plan approved). */
  note: (text: string) => void;
  /** The user's minagent folder (MINAGENT_HOME), where rules the person saves are recorded as theirs. */
  userDirectory: string;
};

const interruptedDecision: ApprovalDecision = { behavior: "deny", message: "The user interrupted this call before deciding." };

/** How long a prompt waits unanswered before Notification hooks hear `permission_prompt` (Claude Code's six seconds). */
const permissionNotificationMs = 6_000;

/**
 * The session's `askPerson`: a call the permissions would ask about is shown (for Edit and Write, the diff it would
 * make; for ExitPlanMode, the plan) and answered yes, yes-and-don't-ask-again (a session rule, or one saved to the
 * project's settings.local.json), or no with a reason the model reads. One prompt at a time; calls that the
 * session's rules now allow are not asked. Escape or Ctrl-C denies and interrupts the turn.
 */

export function createApprovals(host: ApprovalHost): {
  askPerson: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** The session's answer to MCP servers' elicitation: a form or a link, in the same queue as the prompts, so that none overlap. */
  elicit: (request: McpElicitationRequest) => Promise<McpElicitationResult>;
  /** The change to make once a call has ended (plan approved with "auto-accept edits"). */
  takeFollowUp: (toolCallId: string) => (() => void) | undefined;
} {
  let queue: Promise<unknown> = Promise.resolve();
  const followUps = new Map<string, () => void>();

  const ask = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    if (request.signal.aborted) return interruptedDecision;
    const { toolCall } = request;
    // Leaving the sandbox is asked every time, and a host for the sandbox's proxy once a session: no session rule
    // answers for the person, and none is offered.
    const before = await beforeAsking(host.agent(), host.rules(), toolCall);
    if (before.answered) return before.answered;
    const { suggestion } = before;
    // An MCP tool may also be allowed with every tool of its server.
    const serverSuggestion = suggestion && (await host.rules().suggestServer(toolCall));
    const isNetwork = toolCall.name === networkRequestName;
    const isPlan = toolCall.name === "ExitPlanMode";
    host.onOpen();
    const notify = setTimeout(() => {
      host
        .agent()
        .hooks.runNotificationHooks({
          notificationType: "permission_prompt",
          message: `minagent needs your permission to use ${toolCall.name}`,
          title: "Permission needed",
        })
        .catch(() => {});
    }, permissionNotificationMs);
    try {
      const title = await describeRequest(host, request);
      const choices = isPlan ? planChoices() : isNetwork ? networkChoices() : callChoices(suggestion, serverSuggestion);
      const outcome = await chooseOne(host.terminal, {
        title,
        choices,
        footer: "↑↓ Enter, or the number · Esc: no, and stop the turn",
        signal: request.signal,
      });
      if ("cancelled" in outcome) {
        host.interrupt();
        return interruptedDecision;
      }
      const server = outcome.value === "always-server" || outcome.value === "save-server";
      return await decide(outcome.value, request, server ? serverSuggestion : suggestion);
    } finally {
      clearTimeout(notify);
      host.onClose();
    }
  };

  const decide = async (answer: Answer, request: ApprovalRequest, suggestion: string[] | undefined): Promise<ApprovalDecision> => {
    const { terminal } = host;
    const id = request.toolCall.id;
    const rules = suggestion ?? [];
    switch (answer) {
      case "yes":
        return { behavior: "allow" };
      case "always":
      case "always-server":
        host.rules().add(rules);
        host.note(terminal.style.dim(`  Allowed for this session: ${rules.join(", ")}`));
        return { behavior: "allow" };
      case "save":
      case "save-server": {
        const file = localSettingsFile(host.agent().workspace.root);
        try {
          await host.rules().save(rules, file);
          // The person's own rules: they must never come back as a question of trust.
          const root = host.agent().workspace.root;
          await rememberOwnProjectSettings(
            host.userDirectory,
            root,
            rules.map((rule) => allowRuleLine(root, file, rule)),
          );
          host.note(terminal.style.dim(`  Saved to ${host.agent().workspace.display(file)}: ${rules.join(", ")}`));
        } catch (error) {
          host.rules().add(rules);
          host.note(terminal.style.yellow(`  ${(error as Error).message} Allowed for this session only.`));
        }
        return { behavior: "allow" };
      }
      case "plan-accept-edits":
      case "plan-default": {
        const mode: PermissionMode = answer === "plan-accept-edits" ? "acceptEdits" : "default";
        followUps.set(id, () => {
          if (host.agent().permissions.mode !== "plan") host.agent().permissions.mode = mode;
        });
        host.note(
          terminal.style.dim(
            `  Plan approved; ${mode === "acceptEdits" ? "edits will be accepted without asking" : "each change will be asked"}.`,
          ),
        );
        return { behavior: "allow" };
      }
      case "no": {
        // Nobody reads a reason for a host: the proxy refuses the command's request, and the command says so.
        if (request.toolCall.name === networkRequestName) return { behavior: "deny", message: "The user refused this host." };
        const prompt =
          request.toolCall.name === "ExitPlanMode"
            ? "  What should change in the plan? › "
            : "  Why not? (the agent reads this; Enter to skip) › ";
        const reason = await readLine<{ kind: "cancel" }>(terminal, {
          prompt,
          keys: { escape: () => ({ kind: "cancel" }), "ctrl-c": () => ({ kind: "cancel" }) },
          signal: request.signal,
        });
        terminal.eraseRowsAbove(countInputRows(prompt, reason.kind === "submit" ? reason.text : "", terminal.columns));
        if (reason.kind !== "submit") {
          host.interrupt();
          return interruptedDecision;
        }
        const why = reason.text.trim();
        if (request.toolCall.name === "ExitPlanMode")
          return {
            behavior: "deny",
            message: `The user did not approve the plan and stays in plan mode. Their feedback: ${why || "(none given)"}\nRevise the plan and call ExitPlanMode again.`,
          };
        return { behavior: "deny", message: `The user denied this call${why ? `: ${why}` : "."}` };
      }
    }
  };

  const elicit = async (request: McpElicitationRequest): Promise<McpElicitationResult> => {
    if (request.signal.aborted) return { action: "cancel" };
    host.onOpen();
    try {
      return await askElicitation(host, request);
    } finally {
      host.onClose();
    }
  };

  /** One dialog at a time: each waits for the one before it. */
  const queued = <T>(dialog: () => Promise<T>): Promise<T> => {
    const answer = queue.then(dialog);
    queue = answer.catch(() => undefined);
    return answer;
  };

  return {
    askPerson: (request) => queued(() => ask(request)),
    elicit: (request) => queued(() => elicit(request)),
    takeFollowUp: (toolCallId) => {
      const followUp = followUps.get(toolCallId);
      followUps.delete(toolCallId);
      return followUp;
    },
  };
}

/**
 * A call's choices, each with its key: y yes; a and s the rules suggested, for the session or saved; for an MCP
 * tool, e and w every tool of its server, for the session or saved; n no.
 */
function callChoices(suggestion: string[] | undefined, serverSuggestion: string[] | undefined): Choice<Answer>[] {
  const choices: Choice<Answer>[] = [{ label: "Yes", key: "y", value: "yes" }];
  const server = serverSuggestion?.[0];
  const everyTool = server && `every tool of server "${server.slice("mcp__".length)}" (${server})`;
  if (suggestion) {
    const rules = suggestion.join(", ");
    // The server's choices come after the tool's, so that 2 and 3 mean the same in every prompt.
    choices.push(
      { label: `Yes, and don't ask again this session for ${rules}`, key: "a", value: "always" },
      { label: `Yes, and always allow ${rules} (.minagent/settings.local.json)`, key: "s", value: "save" },
    );
    if (everyTool)
      choices.push(
        { label: `Yes, and don't ask again this session for ${everyTool}`, key: "e", value: "always-server" },
        { label: `Yes, and always allow ${everyTool} (.minagent/settings.local.json)`, key: "w", value: "save-server" },
      );
  }
  choices.push({ label: "No, and tell the agent why", key: "n", value: "no" });
  return choices;
}

function networkChoices(): Choice<Answer>[] {
  return [
    { label: "Yes, for the rest of this session", key: "y", value: "yes" },
    { label: "No (the command's request is refused)", key: "n", value: "no" },
  ];
}

function planChoices(): Choice<Answer>[] {
  return [
    { label: "Yes, and accept edits without asking", key: "a", value: "plan-accept-edits" },
    { label: "Yes, and ask before each change", key: "y", value: "plan-default" },
    { label: "No, keep planning (tell the agent what to change)", key: "n", value: "no" },
  ];
}

/** The prompt's lines above the choices: what the call is, why it asks, and the change or the plan. */
async function describeRequest(host: ApprovalHost, request: ApprovalRequest): Promise<string[]> {
  const { terminal } = host;
  const { style } = terminal;
  const { toolCall } = request;
  const agent = host.agent();
  const columns = terminal.columns;
  if (toolCall.name === "ExitPlanMode") {
    const plan = typeof toolCall.arguments.plan === "string" ? toolCall.arguments.plan : "";
    const lines = [style.bold("The agent's plan:"), ...wrap(printable(plan), columns - 4).map((line) => `  ${line}`)];
    // The plan stays on screen; only the question is erased.
    host.keep(lines.join("\n"));
    return [style.bold("Approve this plan and leave plan mode?")];
  }
  const lines = [style.bold(`Allow ${describeToolCall(toolCall, agent.workspace.root)}?`)];
  const description = toolCall.arguments.description;
  if (toolCall.name === "Bash" && typeof description === "string") lines.push(style.dim(`  ${flattenText(description)}`));
  if (toolCall.name === mcpSamplingName) lines.push(...describeSamplingRequest(toolCall.arguments, columns, style));
  const hints = describeMcpHints(agent.registry.get(toolCall.name));
  if (hints) lines.push(style.dim(`  ${hints}`));
  const change = await computeFileChange(toolCall, agent.workspace).catch(() => undefined);
  if (change) lines.push(...formatFileChange(change, style, columns));
  // Wrapped, not cut: the end of a reason often says what matters (why it asks, how to allow it for good).
  if (request.reason) {
    const reason = wrap(`(${flattenText(request.reason)})`, columns - 3);
    const shown = reason.length > 3 ? [...reason.slice(0, 2), truncateToWidth(reason.slice(2).join(" "), columns - 3)] : reason;
    lines.push(...shown.map((line) => style.dim(`  ${line}`)));
  }
  return lines;
}

/** What a server's sampling request would send the model: its system prompt and the start of its last message. */
function describeSamplingRequest(args: Record<string, unknown>, columns: number, style: Terminal["style"]): string[] {
  const lines: string[] = [];
  if (typeof args.systemPrompt === "string")
    lines.push(style.dim(`  system: ${truncateToWidth(flattenText(args.systemPrompt), columns - 12)}`));
  if (typeof args.message === "string")
    lines.push(
      ...wrap(flattenText(args.message), columns - 4)
        .slice(0, 4)
        .map((line) => `  ${style.cyan(line)}`),
    );
  if (typeof args.messages === "number" && args.messages > 1) lines.push(style.dim(`  (the last of ${args.messages} messages)`));
  return lines;
}

/** Lines of `text` no wider than `columns`, broken at spaces where possible. */
function wrap(text: string, columns: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/(?<=\s)/)) {
      if (line !== "" && (line + word).trimEnd().length > columns) {
        lines.push(line.trimEnd());
        line = "";
      }
      line += word;
      while (line.length > columns) {
        lines.push(line.slice(0, columns));
        line = line.slice(columns);
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}
