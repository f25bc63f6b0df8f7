import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Message, ModelResponse, ToolChoice, ToolSchema } from "../core/types.js";
import { UsageError } from "../errors.js";
import { createSecretScrubber, type SecretScrubber } from "../trace/scrub-secrets.js";

/** What a model was sent on one call. */
export type CassetteRequest = {
  messages: Message[];
  tools: ToolSchema[];
  /** The call's tool choice; absent when none was given (cassettes recorded before it existed have none). */
  toolChoice?: ToolChoice;
};

/** One recorded model call: the request, and the response or the error it ended with. */
export type CassetteInteraction =
  | { request: CassetteRequest; response: ModelResponse }
  | { request: CassetteRequest; error: { name: string; message: string } };

/**
 * A recording of a model's calls, replayed in order by {@link ReplayModel}. The JSON file format:
 * scrubbed of API keys and marked secrets, never containing the model's configuration.
 */
export type Cassette = {
  format: "minagent-cassette";
  version: 1;
  /** The recorded model's names, so traces of a replay name the same model. */
  model: { provider?: string; modelId?: string };
  interactions: CassetteInteraction[];
};

/**
 * Reads a cassette file. Throws a UsageError naming the file when it is missing, not JSON, not a cassette,
 * or malformed (see {@link checkCassette}).
 */
export function readCassette(path: string): Cassette {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`No cassette at ${path}: record one first (wrap the real model in a RecordingModel).`, { cause: error });
  }
  let cassette: Partial<Cassette> | null;
  try {
    cassette = JSON.parse(text) as Partial<Cassette> | null;
  } catch (error) {
    throw new UsageError(`Cassette ${path} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (cassette?.format !== "minagent-cassette" || cassette.version !== 1 || !Array.isArray(cassette.interactions)) {
    throw new UsageError(`${path} is not a minagent cassette (version 1).`);
  }
  return checkCassette(cassette, `Cassette ${path}`);
}

/**
 * Checks what a replay reads of a cassette: the model's names, and for every interaction a request
 * (`messages` and `tools` arrays) and a response (with a `message`) or an error. Throws a UsageError that
 * starts with `source` (e.g. "Cassette test/cassettes/weather.json") and says which interaction is wrong
 * and how, so a hand-edited or truncated cassette fails at once rather than as a TypeError mid-replay.
 */
export function checkCassette(cassette: unknown, source: string): Cassette {
  const fail = (problem: string) => new UsageError(`${source} is malformed: ${problem}. Fix it by hand, or delete it and record it again.`);
  const candidate = cassette as Partial<Cassette> | null;
  if (!isObject(candidate)) throw fail("it is not an object");
  if (candidate.format !== "minagent-cassette" || candidate.version !== 1)
    throw fail('it needs "format": "minagent-cassette" and "version": 1');
  if (!isObject(candidate.model))
    throw fail('"model" is missing: it needs { "provider", "modelId" } (either may be left out, but not the object)');
  if (!Array.isArray(candidate.interactions)) throw fail('"interactions" is not an array');
  candidate.interactions.forEach((interaction: unknown, index) => {
    const where = `interaction ${index} (call ${index + 1})`;
    if (!isObject(interaction))
      throw fail(
        `${where} is ${interaction === null ? "null" : typeof interaction}, not { "request", "response" } or { "request", "error" }`,
      );
    const { request, response, error } = interaction as Record<string, unknown>;
    if (!isObject(request)) throw fail(`${where} has no "request"`);
    if (!Array.isArray(request.messages)) throw fail(`${where}: "request.messages" is not an array`);
    if (!Array.isArray(request.tools)) throw fail(`${where}: "request.tools" is not an array`);
    if (request.messages.some((message: unknown) => !isObject(message)))
      throw fail(`${where}: "request.messages" holds something that is not a message`);
    if (response === undefined && error === undefined) throw fail(`${where} has neither a "response" nor an "error"`);
    if (response !== undefined && !(isObject(response) && isObject(response.message))) throw fail(`${where}: "response" has no "message"`);
    if (response === undefined && !(isObject(error) && typeof error.message === "string"))
      throw fail(`${where}: "error" needs a "message" string`);
  });
  return candidate as Cassette;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Writes a cassette file, creating its directory. Pretty-printed, so a changed cassette reads well in a diff. */
export function writeCassette(path: string, cassette: Cassette): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(cassette, null, 2)}\n`);
}

/** What a recorder or replayer hides, as given to it. */
export type CassetteSecrets = {
  secrets?: readonly (string | undefined)[] | undefined;
  secretKeys?: readonly string[] | undefined;
};

/** The scrubber of a recorder or replayer; options left undefined are not passed on. */
export function createCassetteScrubber({ secrets, secretKeys }: CassetteSecrets): SecretScrubber {
  return createSecretScrubber({ ...(secrets && { secrets }), ...(secretKeys && { secretKeys }) });
}

/** A request as a cassette keeps it: scrubbed, with `toolChoice` only when the call had one. */
export function createCassetteRequest(
  scrubber: SecretScrubber,
  messages: Message[],
  tools: ToolSchema[],
  toolChoice: ToolChoice | undefined,
): CassetteRequest {
  return {
    messages: scrubber.value(messages),
    tools: scrubber.value(tools),
    ...(toolChoice !== undefined && { toolChoice: scrubber.value(toolChoice) }),
  };
}
