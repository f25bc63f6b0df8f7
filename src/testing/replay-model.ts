import { AssertionError } from "node:assert";
import type { Message, Model, ModelCallOptions, ModelResponse, ToolChoice, ToolSchema } from "../core/types.js";
import { MinagentError } from "../errors.js";
import { FakeModel } from "../models/fake-model.js";
import type { SecretScrubber } from "../trace/scrub-secrets.js";
import {
  type Cassette,
  type CassetteInteraction,
  type CassetteRequest,
  checkCassette,
  createCassetteRequest,
  createCassetteScrubber,
  readCassette,
} from "./cassette.js";
import { describeDifferences, formatDifferences } from "./describe-differences.js";

/** Which parts of a request must equal the recorded one. Each defaults to true. */
export type RequestMatchOptions = {
  /** The system prompt (system messages). */
  systemPrompt?: boolean | undefined;
  /** The other messages: the user's input, the assistant's turns, the observations. */
  messages?: boolean | undefined;
  /** The tool schemas: names, descriptions, parameters. */
  tools?: boolean | undefined;
  /** The call's tool choice (`"required"`, a named tool…); a request without one matches only a recording without one. */
  toolChoice?: boolean | undefined;
};

/** Decides whether a request matches the recorded one, for tests that need their own rule. */
export type RequestMatcher = (recorded: CassetteRequest, actual: CassetteRequest, call: number) => boolean;

/** Settings of a replayer. */
export type ReplayModelOptions = {
  /** How strictly requests must match the recording (default: everything must be equal). */
  match?: RequestMatchOptions | RequestMatcher | undefined;
  /** The secrets the recorder was given, so that requests are compared as they were recorded. */
  secrets?: readonly (string | undefined)[] | undefined;
  /** The extra secret keys the recorder was given. */
  secretKeys?: readonly string[] | undefined;
};

/**
 * Serves a cassette's responses back, in order, offline. Before each it checks that the request is
 * the one recorded; when it is not (a changed system prompt, tool schema or conversation) the call
 * throws an AssertionError listing what changed, unless `match` allows the change.
 * @example
 * const model = new ReplayModel("test/cassettes/weather.json");
 * const result = await new Agent(model, registry, { system }).run("…");
 */
export class ReplayModel implements Model {
  readonly provider?: string;
  readonly modelId?: string;
  readonly #cassette: Cassette;
  readonly #source: string;
  readonly #match: RequestMatchOptions | RequestMatcher;
  readonly #scrubber: SecretScrubber;
  // A FakeModel does the serving, so a replay streams exactly as scripted runs do.
  readonly #fake: FakeModel;

  /** @param cassette a cassette, or the path of a cassette file. */
  constructor(cassette: Cassette | string, options: ReplayModelOptions = {}) {
    this.#cassette = typeof cassette === "string" ? readCassette(cassette) : checkCassette(cassette, "The cassette");
    this.#source = typeof cassette === "string" ? `cassette ${cassette}` : "the cassette";
    this.#match = options.match ?? {};
    this.#scrubber = createCassetteScrubber(options);
    const { provider, modelId } = this.#cassette.model;
    if (provider !== undefined) this.provider = provider;
    if (modelId !== undefined) this.modelId = modelId;
    this.#fake = new FakeModel(
      this.#cassette.interactions.map(
        (interaction, call) => (messages, tools, options) => this.#serve(interaction, call, messages, tools, options.toolChoice),
      ),
    );
  }

  /** Recorded calls not served yet. A test can assert it is 0: the run made every recorded call. */
  get remaining(): number {
    return this.#fake.remaining;
  }

  complete(messages: Message[], tools: ToolSchema[], options?: ModelCallOptions): Promise<ModelResponse> {
    if (this.#fake.remaining === 0) {
      const count = this.#cassette.interactions.length;
      return Promise.reject(
        new AssertionError({
          message: `Replay call ${count + 1} has no recording: ${this.#source} holds ${count} call(s). The run now makes more model calls than when it was recorded; re-record the cassette if that is intended.`,
        }),
      );
    }
    return this.#fake.complete(messages, tools, options);
  }

  #serve(
    interaction: CassetteInteraction,
    call: number,
    messages: Message[],
    tools: ToolSchema[],
    toolChoice: ToolChoice | undefined,
  ): ModelResponse {
    const actual = createCassetteRequest(this.#scrubber, messages, tools, toolChoice);
    this.#check(interaction.request, actual, call);
    if ("error" in interaction) throw Object.assign(new MinagentError(interaction.error.message), { name: interaction.error.name });
    // A copy, so a test that changes the response cannot change the next replay.
    return structuredClone(interaction.response);
  }

  #check(recorded: CassetteRequest, actual: CassetteRequest, call: number): void {
    const match = this.#match;
    if (typeof match === "function") {
      if (!match(recorded, actual, call)) this.#mismatch(recorded, actual, call, describeDifferences(recorded, actual));
      return;
    }
    const { systemPrompt = true, messages = true, tools = true, toolChoice = true } = match;
    const compared = (request: CassetteRequest) => ({
      messages: request.messages.filter((message) => (message.role === "system" ? systemPrompt : messages)),
      ...(tools && { tools: request.tools }),
      ...(toolChoice && request.toolChoice !== undefined && { toolChoice: request.toolChoice }),
    });
    const differences = describeDifferences(compared(recorded), compared(actual));
    if (differences.length > 0) this.#mismatch(recorded, actual, call, differences);
  }

  #mismatch(recorded: CassetteRequest, actual: CassetteRequest, call: number, differences: ReturnType<typeof describeDifferences>): never {
    const message = [
      `Replay call ${call + 1} does not match ${this.#source}: the request changed since it was recorded.`,
      formatDifferences(differences, { expected: "recorded", actual: "now" }),
      "Re-record the cassette if the change is intended, or loosen the match, e.g. new ReplayModel(path, { match: { systemPrompt: false } }).",
    ].join("\n");
    const error = new AssertionError({ message, actual, expected: recorded, operator: "replayMatches" });
    Object.assign(error, { showDiff: false }); // the message lists the changes; a diff of whole requests would bury them
    throw error;
  }
}
