import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { JsonSchema } from "../engine.js";

/** A value a person may give in an elicitation form: MCP allows only flat fields. */
export type McpElicitationValue = string | number | boolean | string[];

/**
 * A server's `elicitation/create`: it wants something from the person. In `form` mode it sends a flat JSON Schema
 * of the fields it wants (strings, numbers, integers, booleans, enums); in `url` mode a URL for the person to open
 * (a sign-in, a payment), whose outcome the server learns by itself.
 */
export type McpElicitationRequest = {
  /** The server's name in the config: say it, so that the person knows who asks. */
  server: string;
  /** What the server says it wants, in its own words. */
  message: string;
  /** Aborted when the server cancels the request, or its connection closes. */
  signal: AbortSignal;
} & (
  | { mode: "form"; requestedSchema: JsonSchema }
  | {
      mode: "url";
      url: string;
      /** The server's id for this elicitation. */
      elicitationId: string;
    }
);

/**
 * The person's answer: `accept` with the form's values (for a URL, that they agreed to open it), `decline` (they
 * said no), or `cancel` (they dismissed it without choosing).
 */
export type McpElicitationResult =
  | { action: "accept"; content?: Record<string, McpElicitationValue> | undefined }
  | { action: "decline" }
  | { action: "cancel" };

/** Answers a server's elicitation: asks a person, or declines. */
export type McpElicitationHandler = (request: McpElicitationRequest) => Promise<McpElicitationResult>;

/** One message of a server's sampling request. */
export type McpSamplingMessage = {
  role: "user" | "assistant";
  /** A text, image or audio block (or, with newer servers, a list of them). */
  content: McpSamplingContent | McpSamplingContent[];
};

/** A block of a sampling message: text, or media (`data` is base64) that minagent describes to the model in words. */
export type McpSamplingContent =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: string; [key: string]: unknown };

/** A server's `sampling/createMessage`: it wants the client's model to answer a conversation. */
export type McpSamplingRequest = {
  /** The server's name in the config. */
  server: string;
  messages: McpSamplingMessage[];
  systemPrompt?: string | undefined;
  /** The most tokens the server wants back (a request; minagent's models answer with their own limit). */
  maxTokens: number;
  temperature?: number | undefined;
  stopSequences?: string[] | undefined;
  /** The server's hints about which model it would like (names, cost and speed priorities). */
  modelPreferences?: Record<string, unknown> | undefined;
  /** Aborted when the server cancels the request, or its connection closes. */
  signal: AbortSignal;
};

/** The model's answer to a sampling request, as MCP sends it back. */
export type McpSamplingResult = {
  role: "assistant";
  content: { type: "text"; text: string };
  /** The model that answered. */
  model: string;
  /** `endTurn`, `maxTokens`, `stopSequence`, or another reason as the model gave it. */
  stopReason?: string | undefined;
};

/** Runs a server's sampling request on a model; rejects (with a message the server reads) to refuse it. */
export type McpSamplingHandler = (request: McpSamplingRequest) => Promise<McpSamplingResult>;

/** A root as MCP lists it: a `file://` URI, and a name for people. */
export type McpRoot = { uri: string; name?: string | undefined };

/**
 * What the client offers servers beyond calling their tools, shared by every connection and read at each request,
 * so that a handler set after connecting answers from then on. A capability is declared to a server when it
 * connects, if what answers it is there then (a handler, or roots).
 */
export type McpClientFeatures = {
  elicit: McpElicitationHandler | undefined;
  sample: McpSamplingHandler | undefined;
  roots: readonly McpRoot[] | undefined;
};

/** The folders as MCP roots: absolute `file://` URIs, each named after its folder. */
export function rootsOf(paths: readonly string[]): McpRoot[] {
  return paths.map((path) => {
    const uri = pathToFileURL(path).href;
    return { uri, name: path.split(/[\\/]/).filter(Boolean).pop() ?? path };
  });
}

/**
 * Declares to the server what `features` can answer (elicitation, sampling, roots) and installs the handlers that
 * answer its requests. Call it before the client connects: capabilities are fixed at the handshake. Form elicitation
 * is declared with `applyDefaults`, so that the SDK fills in the schema's defaults a person left alone.
 */
export async function attachClientFeatures(client: Client, server: string, features: McpClientFeatures): Promise<void> {
  const { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  client.registerCapabilities({
    ...(features.elicit && { elicitation: { form: { applyDefaults: true }, url: {} } }),
    ...(features.sample && { sampling: {} }),
    ...(features.roots && { roots: { listChanged: true } }),
  });
  if (features.elicit)
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const { params } = request;
      const elicit = features.elicit;
      // A handler taken away after the handshake: nobody can answer now.
      if (!elicit) return { action: "decline" };
      const asked =
        params.mode === "url"
          ? { mode: "url" as const, url: params.url, elicitationId: params.elicitationId }
          : { mode: "form" as const, requestedSchema: params.requestedSchema as JsonSchema };
      const result = await elicit({ server, message: params.message, signal: extra.signal, ...asked });
      return result.action === "accept" ? { action: "accept", ...(result.content && { content: result.content }) } : result;
    });
  if (features.sample)
    client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      const sample = features.sample;
      if (!sample) throw new Error("This client no longer runs sampling requests.");
      const { params } = request;
      return sample({
        server,
        messages: params.messages as McpSamplingMessage[],
        systemPrompt: params.systemPrompt,
        maxTokens: params.maxTokens,
        temperature: params.temperature,
        stopSequences: params.stopSequences,
        modelPreferences: params.modelPreferences as Record<string, unknown> | undefined,
        signal: extra.signal,
      });
    });
  if (features.roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [...(features.roots ?? [])] }));
}
