export { FakeModel, type FakeModelOptions, type FakeModelRequest, type FakeModelScriptItem } from "../models/fake-model.js";
export { type Cassette, type CassetteInteraction, type CassetteRequest, readCassette, writeCassette } from "./cassette.js";
export { type CassetteModelOptions, cassetteModel } from "./cassette-model.js";
export { countMessageTokens, countRequestTokens, loadO200kTokenizer, type Tokenizer, withTokenCounting } from "./count-tokens.js";
export { type Difference, describeDifferences } from "./describe-differences.js";
export { RecordingModel, type RecordingModelOptions } from "./recording-model.js";
export { ReplayModel, type ReplayModelOptions, type RequestMatcher, type RequestMatchOptions } from "./replay-model.js";
export { reply, toolCall, withUsage } from "./script.js";
export {
  assertConvergedWithin,
  assertFinalAnswer,
  assertNoErrorObservations,
  assertStepKinds,
  assertToolCalled,
} from "./trajectory-assertions.js";
export {
  formatServerSentEvents,
  startWireServer,
  type WireReply,
  type WireRequest,
  type WireResponse,
  type WireServer,
  type WireServerOptions,
} from "./wire-server.js";
