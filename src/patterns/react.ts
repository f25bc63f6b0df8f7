import { Agent, StepRecorder } from "../engine.js";

/**
 * ReAct (book 5.1): the same loop as {@link Agent}, recording Thought / Action / Observation.
 * The text of an assistant turn that also calls tools is its thought; nothing is parsed.
 */
export class ReActAgent<Output = unknown> extends Agent<Output> {
  protected override createRecorder(): StepRecorder {
    return new StepRecorder({ thoughts: true });
  }
}
