import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { type OptionalPackage, optionalPackageError } from "../../optional-peer.js";

/** The parts of `@aws-sdk/client-bedrock-runtime` (and of the HTTP handler it ships with) the adapter uses. */
export type BedrockSdk = {
  BedrockRuntimeClient: typeof import("@aws-sdk/client-bedrock-runtime").BedrockRuntimeClient;
  ConverseCommand: typeof import("@aws-sdk/client-bedrock-runtime").ConverseCommand;
  ConverseStreamCommand: typeof import("@aws-sdk/client-bedrock-runtime").ConverseStreamCommand;
  /** `@smithy/node-http-handler`'s HTTP/1.1 handler. */
  NodeHttpHandler: new (options: {
    socketTimeout?: number | undefined;
  }) => object;
};

/** The optional peer dependency and what to tell a user who has not installed it. */
export const bedrockSdkPackage: OptionalPackage = {
  name: "@aws-sdk/client-bedrock-runtime",
  neededBy: "BedrockModel (minagent/bedrock) needs",
  install: "npm i @aws-sdk/client-bedrock-runtime",
};

/**
 * Loads the Bedrock SDK on the first call of a BedrockModel, not when `minagent/bedrock` is imported (Node
 * caches the modules; each model keeps its client). It is an optional peer dependency; when it is missing this rejects with
 * a UsageError naming the command that installs it. The HTTP/1.1 handler is resolved from the SDK's own
 * folder (it is the SDK's dependency, not minagent's), because the client's default handler speaks HTTP/2,
 * which a plain `http://` endpoint (a proxy, a local test server) does not. `load` is for tests.
 */
export function loadBedrockSdk(load: () => Promise<BedrockSdk> = importBedrockSdk): Promise<BedrockSdk> {
  return load().catch((error: unknown) => {
    throw optionalPackageError(error, bedrockSdkPackage);
  });
}

async function importBedrockSdk(): Promise<BedrockSdk> {
  const sdk = await import("@aws-sdk/client-bedrock-runtime");
  const sdkPath = createRequire(import.meta.url).resolve(bedrockSdkPackage.name);
  const handlerPath = createRequire(sdkPath).resolve("@smithy/node-http-handler");
  const handler = (await import(pathToFileURL(handlerPath).href)) as { NodeHttpHandler: BedrockSdk["NodeHttpHandler"] };
  return {
    BedrockRuntimeClient: sdk.BedrockRuntimeClient,
    ConverseCommand: sdk.ConverseCommand,
    ConverseStreamCommand: sdk.ConverseStreamCommand,
    NodeHttpHandler: handler.NodeHttpHandler,
  };
}
