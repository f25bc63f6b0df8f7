import { afterEach, beforeEach } from "vitest";
import { BedrockModel, type BedrockModelOptions } from "../../../src/models/bedrock/index.js";
import { startWireServer, type WireServer } from "../../../src/testing/wire-server.js";

/** Static test credentials: no test reads ~/.aws or the environment's keys. */
export const testCredentials = { accessKeyId: "AKIDEXAMPLETEST", secretAccessKey: "bedrock-secret-9f8e7d6c5b4a" };

/** A wire server per test (closed after it) and a BedrockModel pointed at it. */
export function useBedrockServer(options: { keepCredentials?: boolean } = {}) {
  const context = {
    server: undefined as unknown as WireServer,
    model: (overrides: Partial<BedrockModelOptions> = {}) =>
      new BedrockModel({
        model: "us.anthropic.claude-sonnet-4-20250514-v1:0",
        region: "us-east-1",
        endpoint: context.server.url,
        credentials: testCredentials,
        retry: { baseDelayMs: 1 },
        ...overrides,
      }),
    /** The JSON body of the `index`th request the server received (throws when there is none). */
    sentBody<T>(index: number): T {
      const request = context.server.requests[index];
      if (!request) throw new Error(`no request ${index} was received`);
      return request.body as T;
    },
  };
  beforeEach(async () => {
    context.server = await startWireServer(options);
  });
  afterEach(() => context.server.close());
  return context;
}
