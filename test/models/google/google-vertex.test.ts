import { generateKeyPairSync, verify } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { JWT } from "google-auth-library";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { Message } from "../../../src/core/types.js";
import { GoogleModel } from "../../../src/models/google/index.js";
import { startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { fixtureJson, fixtureReply } from "../../helpers/provider-fixtures.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

// Vertex AI through the SDK's real Vertex path, offline: google-auth-library reads credentials from a file (as
// application-default credentials are read), gets or signs a token, and the SDK sends it as a Bearer token to
// the project's path. google-auth-library 10 sends a service account's token request to a fixed
// oauth2.googleapis.com/token (the key file's token_uri is not read), so the token exchange is driven with an
// `authorized_user` file (what `gcloud auth application-default login` writes) and the client's token endpoint
// option; a service account key is driven through its self-signed JWT (google-auth-library's own JWT client, given
// as `authClient`, read from the key file's JSON), which needs no token endpoint.

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer({ keepCredentials: true });
  vi.stubEnv("GOOGLE_API_KEY", "");
  vi.stubEnv("GEMINI_API_KEY", "");
  vi.stubEnv("GOOGLE_CLOUD_PROJECT", "");
  vi.stubEnv("GOOGLE_CLOUD_LOCATION", "");
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

const user: Message[] = [{ role: "user", content: "Hello" }];
const vertexPath = "/v1beta1/projects/minagent-test/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent";

describe("GoogleModel on Vertex AI", () => {
  test("application-default credentials from GOOGLE_APPLICATION_CREDENTIALS: the token exchange, then the Bearer token on the project's path", async () => {
    const file = join(temporaryFolder("minagent-vertex-"), "adc.json");
    const credentials = { type: "authorized_user", client_id: "test-client", client_secret: "test-secret", refresh_token: "test-refresh" };
    writeFileSync(file, JSON.stringify(credentials));
    vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", file);
    vi.stubEnv("GOOGLE_CLOUD_PROJECT", "minagent-test");
    vi.stubEnv("GOOGLE_CLOUD_LOCATION", "us-central1");
    server.reply(
      { json: { access_token: "ya29.test-access-token", expires_in: 3600, token_type: "Bearer" } },
      fixtureReply("google/generate-text-thoughts-token-count.json"),
      fixtureReply("google/generate-max-tokens.json"),
    );
    const model = new GoogleModel({
      model: "gemini-2.5-flash",
      baseURL: server.url,
      vertex: { googleAuthOptions: { clientOptions: { endpoints: { oauth2TokenUrl: `${server.url}/token` } } } },
    });
    const response = await model.complete(user, []);
    expect(response).toMatchObject({
      message: { content: "Hello! How can I help you today?" },
      usage: { inputTokens: 9, outputTokens: 43 },
    });

    const [token, call] = server.requests;
    expect(token?.path).toBe("/token");
    expect(Object.fromEntries(new URLSearchParams(token?.text))).toMatchObject({
      grant_type: "refresh_token",
      refresh_token: "test-refresh",
    });
    expect(call?.path).toBe(vertexPath);
    expect(call?.headers.authorization).toBe("Bearer ya29.test-access-token");
    expect(call?.headers["x-goog-api-key"]).toBeUndefined();
    expect(call?.body).toEqual({ contents: [{ role: "user", parts: [{ text: "Hello" }] }], generationConfig: {} });

    // The token is reused until it expires: the next call goes straight to the model.
    await model.complete(user, []);
    expect(server.requests.map((request) => request.path)).toEqual(["/token", vertexPath, vertexPath]);
  });

  test("a service account key (a self-signed JWT, signed with the key, as the Bearer token); an ignored Gemini key", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const keyFile = join(temporaryFolder("minagent-vertex-"), "service-account.json");
    const key = {
      type: "service_account",
      project_id: "minagent-test",
      private_key_id: "test-key-id",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      client_email: "agent@minagent-test.iam.gserviceaccount.com",
      client_id: "1234",
    };
    writeFileSync(keyFile, JSON.stringify(key));
    const authClient = new JWT({ scopes: ["https://www.googleapis.com/auth/cloud-platform"] });
    authClient.fromJSON(JSON.parse(readFileSync(keyFile, "utf8")));
    authClient.useJWTAccessWithScope = true; // what Google's own client libraries set: sign the token rather than exchange it
    vi.stubEnv("GEMINI_API_KEY", "a-gemini-key-that-must-not-be-sent");
    server.reply(fixtureReply("google/generate-function-call-thought-signature.json"));
    const model = new GoogleModel({
      model: "gemini-2.5-flash",
      baseURL: server.url,
      vertex: {
        project: "minagent-test",
        location: "us-central1",
        googleAuthOptions: { authClient },
      },
    });
    const response = await model.complete(user, []);
    const recorded = fixtureJson<{ candidates: { content: { parts: unknown[] } }[] }>(
      "google/generate-function-call-thought-signature.json",
    );
    expect(response.message.toolCalls?.map(({ name, arguments: args }) => ({ name, args }))).toEqual([
      { name: "get_capital", args: { country: "France" } },
    ]);
    expect(response.message.providerMetadata?.google).toEqual({ parts: recorded.candidates[0]?.content.parts });

    const [call] = server.requests;
    expect(server.requests).toHaveLength(1); // no token endpoint was needed
    expect(call?.path).toBe(vertexPath);
    expect(call?.headers["x-goog-api-key"]).toBeUndefined();
    const jwt = /^Bearer (.+)$/.exec(call?.headers.authorization ?? "")?.[1] ?? "";
    const [header, payload, signature] = jwt.split(".");
    const decode = (part: string | undefined) =>
      JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
    expect(decode(header)).toMatchObject({ alg: "RS256", kid: "test-key-id" });
    expect(decode(payload)).toMatchObject({
      iss: key.client_email,
      sub: key.client_email,
      scope: "https://www.googleapis.com/auth/cloud-platform",
    });
    expect(verify("RSA-SHA256", Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature ?? "", "base64url"))).toBe(true);
  });

  test("a token endpoint that refuses the credentials is an error about the access token, not the model's address", async () => {
    const file = join(temporaryFolder("minagent-vertex-"), "adc.json");
    writeFileSync(file, JSON.stringify({ type: "authorized_user", client_id: "c", client_secret: "s", refresh_token: "revoked" }));
    vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", file);
    server.reply({ status: 400, json: { error: "invalid_grant", error_description: "Token has been expired or revoked." } });
    const model = new GoogleModel({
      model: "gemini-2.5-flash",
      baseURL: server.url,
      vertex: {
        project: "minagent-test",
        location: "us-central1",
        googleAuthOptions: { clientOptions: { endpoints: { oauth2TokenUrl: `${server.url}/token` } } },
      },
    });
    const error = await model.complete(user, []).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ provider: "google", kind: "api", errorType: "credentials", retryable: false });
    expect((error as { providerMessage: string }).providerMessage).toMatch(/^could not get a Google Cloud access token: .*invalid_grant/);
    expect(server.requests.map((request) => request.path)).toEqual(["/token"]);
  });

  test("vertex: true takes project and location from the environment; without a project it is a UsageError; an apiKey is refused", () => {
    expect(() => new GoogleModel({ model: "gemini-2.5-flash", vertex: true })).toThrow(
      "GoogleModel on Vertex AI needs a project: set the GOOGLE_CLOUD_PROJECT environment variable or pass { vertex: { project } }.",
    );
    vi.stubEnv("GOOGLE_CLOUD_PROJECT", "minagent-test");
    expect(() => new GoogleModel({ model: "gemini-2.5-flash", vertex: true })).not.toThrow();
    vi.stubEnv("GOOGLE_GENAI_USE_VERTEXAI", "true");
    expect(() => new GoogleModel({ model: "gemini-2.5-flash" })).not.toThrow(); // Vertex AI: no Gemini key needed
    expect(() => new GoogleModel({ model: "gemini-2.5-flash", vertex: false })).toThrow(/needs an API key/);
    expect(() => new GoogleModel({ model: "gemini-2.5-flash", vertex: true, apiKey: "k" })).toThrow(/apiKey is for the Gemini API/);
  });
});
