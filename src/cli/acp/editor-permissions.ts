import type * as acp from "@agentclientprotocol/sdk";
import type { ApprovalRequest, CodingAgent } from "../../code/coding-agent.js";
import type { PermissionMode } from "../../code/permissions/modes.js";
import type { NetworkRequest } from "../../code/sandbox/network-proxy.js";
import type { ApprovalDecision } from "../../core/run-state.js";
import { allowRuleLine, rememberOwnProjectSettings } from "../code/project-trust.js";
import { beforeAsking, localSettingsFile, networkRequestName, SessionRules } from "../code/session-rules.js";
import { textContent, toolKind, toolLocations, toolTitle } from "./describe-tool-call.js";
import type { EditorConnection } from "./editor-session.js";
import type { TurnUpdates } from "./turn-updates.js";

/** What the permission prompts need of the session around them. */
export type EditorPermissionHost = {
  connection: EditorConnection;
  sessionId: string;
  agent: () => CodingAgent;
  /** The running turn's updates: a call is announced before the editor is asked about it. */
  turn: () => TurnUpdates | undefined;
  /** Queues an update after those queued before; resolves once it is sent (and so every one before it). */
  send: (update: acp.SessionUpdate) => Promise<unknown>;
  /** Resolves once every update queued so far is sent. */
  flush: () => Promise<unknown>;
};

/** The session's answers to the agent's asks, from the editor. */
export type EditorPermissions = {
  askPerson: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  askNetwork: (request: NetworkRequest) => Promise<boolean>;
  /** The mode an approved plan asked for, once its ExitPlanMode call has ended. */
  takeFollowUp: (toolCallId: string) => PermissionMode | undefined;
  /** Withdraws every question still open (the turn was cancelled): each is answered no. */
  cancelAll: () => void;
};

const cancelledDecision: ApprovalDecision = { behavior: "deny", message: "The user cancelled the turn before deciding." };

/**
 * Where the session would ask a person, the editor is asked (`session/request_permission`) for that tool call, with
 * allow once, allow always (the rule the interactive CLI would offer, saved as it saves it: to the project's
 * `.minagent/settings.local.json`) and reject. The call waits for the answer: nothing runs before. A rejection
 * reaches the model as the person's refusal and the turn goes on. ExitPlanMode's "always" means: and accept edits.
 */
export function createEditorPermissions(host: EditorPermissionHost): EditorPermissions {
  const open = new Set<AbortController>();
  const followUps = new Map<string, PermissionMode>();
  let rules: SessionRules | undefined;
  const sessionRules = () => {
    rules ??= new SessionRules(host.agent());
    return rules;
  };

  /** Asks the editor; undefined when the question was withdrawn (cancel) or the editor could not answer. */
  const ask = async (toolCall: acp.ToolCallUpdate, options: acp.PermissionOption[]): Promise<string | undefined> => {
    const controller = new AbortController();
    open.add(controller);
    try {
      const response = await host.connection.client.request(
        "session/request_permission",
        { sessionId: host.sessionId, toolCall, options },
        { cancellationSignal: controller.signal, stopWaitingOnCancel: true },
      );
      return response.outcome.outcome === "selected" ? response.outcome.optionId : undefined;
    } catch {
      return undefined;
    } finally {
      open.delete(controller);
    }
  };

  /**
   * The editor sees the call before it is asked about it: announced in the running turn (a subagent's call, a
   * network request), or on its own between turns; the question waits until the announcement is sent.
   */
  const announce = async (call: Pick<ApprovalRequest["toolCall"], "id" | "name" | "arguments">, title: string, kind: acp.ToolKind) => {
    const turn = host.turn();
    if (turn) turn.announce(call);
    else await host.send({ sessionUpdate: "tool_call", toolCallId: call.id, title, kind, status: "pending", rawInput: call.arguments });
    await host.flush();
  };

  const askPerson = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    if (request.signal.aborted) return cancelledDecision;
    const agent = host.agent();
    const { toolCall } = request;
    const before = await beforeAsking(agent, sessionRules(), toolCall);
    if (before.answered) return before.answered;
    const { suggestion } = before;
    const isPlan = toolCall.name === "ExitPlanMode";
    const root = agent.workspace.root;
    await announce(toolCall, toolTitle(toolCall, root), toolKind(toolCall));
    const reason = request.reason ? [textContent(`Why this is asked: ${request.reason}`)] : [];
    const plan = isPlan && typeof toolCall.arguments.plan === "string" ? [textContent(toolCall.arguments.plan)] : [];
    const options: acp.PermissionOption[] = isPlan
      ? [
          { optionId: "allow_always", name: "Yes, and accept edits without asking", kind: "allow_always" },
          { optionId: "allow_once", name: "Yes, and ask before each change", kind: "allow_once" },
          { optionId: "reject_once", name: "No, keep planning", kind: "reject_once" },
        ]
      : [
          { optionId: "allow_once", name: "Allow", kind: "allow_once" },
          ...(suggestion
            ? [{ optionId: "allow_always", name: `Always allow ${suggestion.join(", ")}`, kind: "allow_always" as const }]
            : []),
          { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        ];
    const answer = await ask(
      {
        toolCallId: toolCall.id,
        title: toolTitle(toolCall, root),
        kind: toolKind(toolCall),
        status: "pending",
        locations: toolLocations(toolCall, root),
        rawInput: toolCall.arguments,
        content: [...plan, ...reason],
      },
      options,
    );
    if (answer === undefined || request.signal.aborted) return cancelledDecision;
    if (answer === "reject_once")
      return isPlan
        ? {
            behavior: "deny",
            message: "The user did not approve the plan and stays in plan mode. Ask what should change, or revise the plan.",
          }
        : {
            behavior: "deny",
            message:
              "The user rejected this call in the editor. Do not retry it as it was; ask what they want instead, or go on without it.",
          };
    if (isPlan) {
      // Once ExitPlanMode has left plan mode: edits accepted without asking, or each change asked.
      followUps.set(toolCall.id, answer === "allow_always" ? "acceptEdits" : "default");
      return { behavior: "allow" };
    }
    if (answer === "allow_always" && suggestion) await saveRules(agent, suggestion, sessionRules(), host.connection.userDirectory);
    return { behavior: "allow" };
  };

  const askNetwork = async ({ host: name, port }: NetworkRequest): Promise<boolean> => {
    const turn = host.turn();
    const id = `network-${name}-${port}-${Date.now()}`;
    const call = { id, name: networkRequestName, arguments: { host: name, port } };
    await announce(call, `Network access to ${name}:${port}`, "fetch");
    const answer = await ask({ toolCallId: id, title: `Network access to ${name}:${port}`, kind: "fetch", status: "pending" }, [
      { optionId: "allow_once", name: "Allow for this session", kind: "allow_once" },
      { optionId: "reject_once", name: "Refuse", kind: "reject_once" },
    ]);
    const allowed = answer === "allow_once";
    const said = allowed ? `${name} allowed for this session.` : `${name} refused.`;
    if (turn) turn.settle(id, allowed, said);
    else
      void host.send({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: allowed ? "completed" : "failed",
        content: [textContent(said)],
      });
    return allowed;
  };

  return {
    askPerson,
    askNetwork,
    takeFollowUp: (toolCallId) => {
      const mode = followUps.get(toolCallId);
      followUps.delete(toolCallId);
      return mode;
    },
    cancelAll: () => {
      for (const controller of open) controller.abort();
    },
  };
}

/** "Always": the rules go to the session and to the project's settings.local.json, recorded as the person's own. */
async function saveRules(agent: CodingAgent, rules: readonly string[], session: SessionRules, userDirectory: string): Promise<void> {
  const root = agent.workspace.root;
  const file = localSettingsFile(root);
  try {
    await session.save(rules, file);
    await rememberOwnProjectSettings(
      userDirectory,
      root,
      rules.map((rule) => allowRuleLine(root, file, rule)),
    );
  } catch (error) {
    session.add(rules);
    process.stderr.write(`minagent acp: ${(error as Error).message} Allowed for this session only.\n`);
  }
}
