import type { Model } from "../../engine.js";
import { UsageError } from "../../errors.js";
import { subagentModelSpec } from "../subagents/model-aliases.js";
import { SwitchableModel } from "../switchable-model.js";
import type { CustomCommand } from "./custom-command.js";

/** Makes a model from a `provider:model` string (minagent's `resolveModel`, or the host's). */
export type ResolveCommandModel = (spec: string) => Model | Promise<Model>;

/**
 * The models custom commands run on. A command's `model` (`haiku`, `claude-3-5-haiku-20241022`,
 * `anthropic:claude-haiku-4-5`) is mapped to the session's provider with the table agent files use
 * (`subagentModelSpec`), made once per model string, and answers that command's run — its turn, Stop hooks'
 * continuations included — through {@link model}, the engine Agent's model; the session's model answers the next
 * prompt. A model that comes to the session's own runs on it; one the session's provider has no match for does too,
 * with a warning ({@link warnings}).
 */
export class CommandModels {
  /** The model to give the engine's Agent: the session's, or the running command's while {@link run} is under way. */
  readonly model: SwitchableModel;
  /** One line per listed command whose model the session's stands in for, naming its file. */
  readonly warnings: readonly string[];
  readonly #resolveModel: ResolveCommandModel;
  /** Models made, by model string; a failure is dropped, so that the next run tries again (a key set meanwhile). */
  readonly #made = new Map<string, Promise<Model>>();

  constructor(session: Model, commands: readonly CustomCommand[], resolveModel: ResolveCommandModel) {
    this.model = new SwitchableModel(session);
    this.#resolveModel = resolveModel;
    this.warnings = commands.flatMap((command) => {
      const choice = command.model === undefined ? undefined : subagentModelSpec(command.model, session);
      return choice?.kind === "session" && choice.note
        ? [`Custom command /${command.name} (${command.source}): asks for ${choice.note}`]
        : [];
    });
  }

  /**
   * Runs `work` (the command's expansion and run) on `command`'s model, and puts the session's model back once it
   * settles, however it ends. The model is made first: one that cannot be (a missing API key, an unknown provider)
   * is a UsageError naming the command and its file, before any shell line of it runs or anything is sent.
   */
  async run<T>(command: CustomCommand, work: () => Promise<T>): Promise<T> {
    return this.model.using(await this.#modelOf(command), work);
  }

  /** The model `command` asks for, or undefined for the session's own. */
  async #modelOf(command: CustomCommand): Promise<Model | undefined> {
    if (command.model === undefined) return undefined;
    const session = this.model.session;
    const choice = subagentModelSpec(command.model, session);
    if (choice.kind === "session" || choice.spec === `${session.provider}:${session.modelId}`) return undefined;
    const { spec } = choice;
    let made = this.#made.get(spec);
    if (!made) {
      made = (async () => this.#resolveModel(spec))();
      this.#made.set(spec, made);
    }
    try {
      return await made;
    } catch (error) {
      this.#made.delete(spec);
      throw new UsageError(
        `Custom command /${command.name} (${command.source}) asks for the model "${spec}", which could not be made: ${error instanceof Error ? error.message : String(error)}. Fix its model line, or remove it to run on the session's model.`,
      );
    }
  }
}
