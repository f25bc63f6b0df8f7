export { FakeModel, type FakeModelRequest, type FakeModelScriptItem } from "../models/fake-model.js";
export { reply, toolCall, withUsage } from "./script.js";
export { countMessageTokens, countRequestTokens, loadO200kTokenizer, type Tokenizer, withTokenCounting } from "./count-tokens.js";
