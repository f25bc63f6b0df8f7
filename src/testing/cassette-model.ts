import { existsSync } from "node:fs";
import type { Model } from "../core/types.js";
import { RecordingModel, type RecordingModelOptions } from "./recording-model.js";
import { ReplayModel, type ReplayModelOptions } from "./replay-model.js";

/** Settings of {@link cassetteModel}. */
export type CassetteModelOptions = Omit<RecordingModelOptions, "path"> &
  Omit<ReplayModelOptions, "secrets" | "secretKeys"> & {
    /** `"auto"` (default) replays when the cassette exists and records when it does not; `"record"` always records anew; `"replay"` never calls the real model. */
    mode?: "auto" | "record" | "replay" | undefined;
  };

/**
 * The usual way to use cassettes in a test: replay `path` when it exists, otherwise record it by
 * calling the real model that `createModel` returns (it is only created when recording).
 * @example
 * const model = cassetteModel("test/cassettes/weather.json", () => new AnthropicModel({ model: "claude-sonnet-4-6" }));
 */
export function cassetteModel(path: string, createModel: () => Model, options: CassetteModelOptions = {}): RecordingModel | ReplayModel {
  const { mode = "auto", match, ...secrets } = options;
  if (mode === "record" || (mode === "auto" && !existsSync(path))) return new RecordingModel(createModel(), { ...secrets, path });
  return new ReplayModel(path, { ...secrets, ...(match && { match }) });
}
