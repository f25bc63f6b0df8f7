import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema, Usage } from "../index.js";
import { type OptionalPackage, optionalPackageError } from "../optional-peer.js";

/** Counts the tokens of a text. */
export type Tokenizer = (text: string) => number;

/** js-tiktoken is a development tool's optional dependency, not a peer of minagent: the message says `npm i -D`. */
const tiktoken: OptionalPackage = {
  name: "js-tiktoken",
  neededBy: "Counting tokens (withTokenCounting, loadO200kTokenizer) needs",
  install: "npm i -D js-tiktoken",
  peer: false,
};

/**
 * Loads the o200k_base tokenizer (GPT-4o's) from js-tiktoken. It takes about a second and some
 * memory, so it is loaded only when asked for. js-tiktoken is an optional dependency, needed only
 * here: when it is not installed this throws a UsageError saying how to install it.
 */
export async function loadO200kTokenizer(): Promise<Tokenizer> {
  let modules: [typeof import("js-tiktoken/lite"), typeof import("js-tiktoken/ranks/o200k_base")];
  try {
    modules = await Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/o200k_base")]);
  } catch (error) {
    throw optionalPackageError(error, tiktoken);
  }
  const [{ Tiktoken }, { default: ranks }] = modules;
  const encoding = new Tiktoken(ranks);
  return (text) => encoding.encode(text).length;
}

// OpenAI's published recipe for chat requests: each message costs its content plus ~3 tokens of framing,
// and every reply is primed with 3 more.
const perMessage = 3;
const replyPriming = 3;

/** Tokens a request would send: every message (content, tool calls, reasoning) and the tool schemas. */
export function countRequestTokens(messages: readonly Message[], tools: readonly ToolSchema[], tokenize: Tokenizer): number {
  let total = replyPriming + (tools.length > 0 ? tokenize(JSON.stringify(tools)) : 0);
  for (const message of messages) total += countMessageTokens(message, tokenize);
  return total;
}

/** Tokens of one message as a model reads or writes it. */
export function countMessageTokens(message: Message, tokenize: Tokenizer): number {
  let total = perMessage + tokenize(message.content);
  for (const call of message.toolCalls ?? []) total += perMessage + tokenize(call.name) + tokenize(JSON.stringify(call.arguments) ?? "");
  for (const part of message.reasoning ?? []) total += tokenize(part.text);
  return total;
}

/**
 * Wraps a model so that every response reports usage: responses that carry their own keep it; the others
 * (a FakeModel's, say) get the tokens counted of what the request would send and of the reply, with a real
 * tokenizer (o200k_base unless another is given). This makes patterns comparable offline.
 */
export function withTokenCounting(model: Model, tokenizer?: Tokenizer): Model {
  let tokenize: Promise<Tokenizer> | undefined = tokenizer && Promise.resolve(tokenizer);
  return {
    ...(model.provider !== undefined && { provider: model.provider }),
    ...(model.modelId !== undefined && { modelId: model.modelId }),
    ...(model.supportsResponseFormat !== undefined && { supportsResponseFormat: model.supportsResponseFormat }),
    async complete(messages: Message[], tools: ToolSchema[], options?: ModelCallOptions): Promise<ModelResponse> {
      const response = await model.complete(messages, tools, options);
      if (response.usage) return response;
      tokenize ??= loadO200kTokenizer();
      const count = await tokenize;
      const usage: Usage = {
        inputTokens: countRequestTokens(messages, tools, count),
        outputTokens: countMessageTokens(response.message, count),
      };
      return { ...response, usage };
    },
  };
}
