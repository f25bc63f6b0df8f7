/**
 * The Gemini API shapes this adapter reads and writes (`models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`, on the Gemini API or Vertex AI), through `@google/genai`'s types.
 * Vendor names stay in this folder; the rest of minagent speaks its own vocabulary.
 * @see https://ai.google.dev/api/generate-content
 */
import type {
  Content,
  FunctionCallingConfig,
  FunctionDeclaration,
  GenerateContentConfig,
  GenerateContentResponseUsageMetadata,
  GoogleGenAIOptions,
  Part,
} from "@google/genai";

/** One turn of a request or response: `user` or `model`, with its parts. */
export type GoogleContent = Content;
/** A part of a turn: text (maybe a thought), a function call or response, each maybe with a `thoughtSignature`. */
export type GooglePart = Part;
/** A tool's declaration, with its JSON Schema in `parametersJsonSchema`. */
export type GoogleFunctionDeclaration = FunctionDeclaration;
/** How the model may call the request's functions (`toolConfig.functionCallingConfig`). */
export type GoogleFunctionCallingConfig = FunctionCallingConfig;
/** Token counts as the API reports them. */
export type GoogleUsage = GenerateContentResponseUsageMetadata;
/** The SDK's options for Google Cloud credentials on Vertex AI (google-auth-library's `GoogleAuthOptions`). */
export type GoogleAuthOptions = NonNullable<GoogleGenAIOptions["googleAuthOptions"]>;

/** What the adapter asks of `models.generateContent` / `generateContentStream`. */
export type GoogleRequest = {
  model: string;
  contents: GoogleContent[];
  /** Everything else: system instruction, tools, tool config, generation settings (the SDK sorts them into the body). */
  config: GenerateContentConfig;
};

/**
 * A response, received whole or assembled from a stream. Kept loose: the adapter reads only these fields,
 * and the API adds others over time.
 */
export type GoogleResponse = {
  candidates?: GoogleCandidate[] | undefined;
  promptFeedback?: { blockReason?: string | undefined; blockReasonMessage?: string | undefined } | undefined;
  usageMetadata?: GoogleUsage | undefined;
  modelVersion?: string | undefined;
  responseId?: string | undefined;
};

/** The first (and only: the adapter asks for one) candidate of a response. */
export type GoogleCandidate = {
  content?: { role?: string | undefined; parts?: GooglePart[] | undefined } | undefined;
  finishReason?: string | undefined;
  finishMessage?: string | undefined;
  safetyRatings?: { category?: string | undefined; blocked?: boolean | undefined }[] | undefined;
};

/**
 * What the adapter keeps in `Message.providerMetadata.google`: the model turn's parts exactly as received
 * (thought signatures where they arrived), to send back unchanged; and, for a blocked response, the notice
 * that stands in for its missing text (so that the notice is not sent back as if the model had written it).
 */
export type GoogleMessageMetadata = { parts: GooglePart[]; blockedNotice?: string };
