// Claude Code's agent files name models by family (`model: sonnet`) or by Claude id (`claude-sonnet-4-5`). minagent
// runs any provider, so a family is mapped to the session's provider through one table; a provider with no match
// runs the subagent on the session's own model.

/** A family Claude Code's agent files name: its aliases, and what a Claude model id names (`claude-3-5-haiku-…`). */
export type ModelFamily = "opus" | "sonnet" | "haiku";

/**
 * The model each family maps to, per provider of the session (README, "model"). Anthropic: the current Claude model
 * of the family. OpenAI: the model of the same tier (opus and sonnet the most capable, haiku the small fast one).
 * Other providers (`ollama`, `openai-compatible`, a fake model) have no entry: the subagent runs on the session's
 * model.
 */
export const modelAliases: Readonly<Record<string, Readonly<Record<ModelFamily, string>>>> = Object.freeze({
  anthropic: Object.freeze({ opus: "claude-opus-4-6", sonnet: "claude-sonnet-4-6", haiku: "claude-haiku-4-5" }),
  openai: Object.freeze({ opus: "gpt-5", sonnet: "gpt-5", haiku: "gpt-5-mini" }),
});

/** What a definition's `model` comes to in a session: a model string to resolve, or the session's own model. */
export type SubagentModelChoice =
  | { kind: "resolve"; spec: string }
  | {
      kind: "session";
      /** Why the session's model stands in for the one written, for the user (absent for `inherit`). */
      note?: string | undefined;
    };

/** What a {@link subagentModelSpec} needs to know of the session's model. */
export type SessionModel = { provider?: string | undefined; modelId?: string | undefined };

/**
 * Maps an agent file's `model` to the session: `inherit` is the session's model; `sonnet`, `opus`, `haiku` and
 * Claude model ids (`claude-sonnet-4-5`, `claude-3-5-haiku-20241022`) go through {@link modelAliases} — except that
 * an Anthropic session runs a Claude id as written. Anything else (`provider:model`, or a name the host's
 * `resolveModel` knows) is resolved as written. Where the session's provider has no match for a family, the
 * session's model runs the subagent, with a note.
 * When the mapped model is the session's own, the session's model instance is used (no second client).
 */
export function subagentModelSpec(written: string, session: SessionModel): SubagentModelChoice {
  const model = written.trim();
  if (model === "" || model === "inherit") return { kind: "session" };
  // A server URL (`openai-compatible:x@https://…`) in a file a repository may carry would send it the conversation:
  // a session chooses its servers with --model, never an agent or command file.
  if (model.includes("@"))
    return {
      kind: "session",
      note: `the model "${model}" names a server, which an agent or command file may not choose (pass it with --model): the session's model (${session.modelId ?? (session.provider || "unnamed")}) runs it`,
    };
  const family = familyOf(model);
  // `anthropic:claude-haiku-4-5`, or a name the host's resolveModel knows: as written.
  if (family === undefined || model.includes(":")) return { kind: "resolve", spec: model };
  const provider = session.provider ?? "";
  const onSession = (why: string): SubagentModelChoice => ({
    kind: "session",
    note: `the model "${model}", which ${why}: the session's model (${session.modelId ?? (provider || "unnamed")}) runs it`,
  });
  const id = provider === "anthropic" && model.startsWith("claude-") ? model : modelAliases[provider]?.[family];
  if (id === undefined) return onSession(`has no equivalent for the session's provider${provider ? ` (${provider})` : ""}`);
  if (id === session.modelId) return { kind: "session" };
  return { kind: "resolve", spec: `${provider}:${id}` };
}

/** The family of an alias (`sonnet`) or a Claude id (`claude-opus-4-1`, `claude-3-7-sonnet-latest`). */
function familyOf(model: string): ModelFamily | undefined {
  const name = model.toLowerCase();
  if (name === "opus" || name === "sonnet" || name === "haiku") return name;
  if (!name.startsWith("claude-")) return undefined;
  return (["opus", "sonnet", "haiku"] as const).find((family) => name.split("-").includes(family));
}
