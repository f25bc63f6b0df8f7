import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema } from "../core/types.js";
import { UsageError } from "../errors.js";
import type { SecretScrubber } from "../trace/scrub-secrets.js";
import { type Cassette, type CassetteInteraction, createCassetteRequest, createCassetteScrubber, writeCassette } from "./cassette.js";

/** Settings of a recorder. */
export type RecordingModelOptions = {
  /** Write the cassette here after every call (so it is complete whenever the test stops). */
  path?: string | undefined;
  /** Values to hide, such as a key the prompt mentions; pass the same to the ReplayModel. */
  secrets?: readonly (string | undefined)[] | undefined;
  /** More object keys whose values are hidden. */
  secretKeys?: readonly string[] | undefined;
};

/**
 * Wraps any model and records each call's request and response into a cassette, to be served back
 * offline by a ReplayModel. Only what passes through `complete` is recorded — never the model's
 * configuration or key — and API keys and marked secrets are scrubbed from it too.
 * @example
 * const model = new RecordingModel(new AnthropicModel({ model: "claude-sonnet-4-6" }), { path: "test/cassettes/weather.json" });
 */
export class RecordingModel implements Model {
  readonly provider?: string;
  readonly modelId?: string;
  /** The recording so far. */
  readonly cassette: Cassette;
  readonly #inner: Model;
  readonly #path: string | undefined;
  readonly #scrubber: SecretScrubber;

  constructor(inner: Model, options: RecordingModelOptions = {}) {
    this.#inner = inner;
    this.#path = options.path;
    this.#scrubber = createCassetteScrubber(options);
    if (inner.provider !== undefined) this.provider = inner.provider;
    if (inner.modelId !== undefined) this.modelId = inner.modelId;
    const model = {
      ...(inner.provider !== undefined && { provider: inner.provider }),
      ...(inner.modelId !== undefined && { modelId: inner.modelId }),
    };
    this.cassette = { format: "minagent-cassette", version: 1, model, interactions: [] };
  }

  async complete(messages: Message[], tools: ToolSchema[], options?: ModelCallOptions): Promise<ModelResponse> {
    const request = createCassetteRequest(this.#scrubber, messages, tools, options?.toolChoice);
    // The slot is taken when the call starts, so concurrent calls replay in the order they were made.
    const index = this.cassette.interactions.length;
    this.cassette.interactions.push({ request, error: { name: "Error", message: "The recording stopped before this call ended." } });
    try {
      const response = await this.#inner.complete(messages, tools, options);
      this.#record(index, { request, response: this.#scrubber.value(response) });
      return response;
    } catch (error) {
      const { name, message } = error instanceof Error ? error : { name: "Error", message: String(error) };
      this.#record(index, { request, error: { name, message: this.#scrubber.text(message) } });
      throw error;
    }
  }

  /** Writes the cassette to `path` (default: the `path` option). */
  save(path = this.#path): void {
    if (path === undefined) throw new UsageError("RecordingModel.save needs a path (or the path option).");
    writeCassette(path, this.cassette);
  }

  #record(index: number, interaction: CassetteInteraction): void {
    this.cassette.interactions[index] = interaction;
    if (this.#path !== undefined) this.save();
  }
}
