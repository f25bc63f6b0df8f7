import { OutputValidationError } from "../errors.js";
import { toText } from "../text.js";
import type { SchemaCheck } from "./compile-schema.js";
import type { ToolOutcome } from "./events.js";
import type { ConcludeTurn, PrepareTurn, RunAnswer, ToolExecuteOptions, ToolExecutor } from "./loop-types.js";
import { finalAnswerName, type OutputContract } from "./output-contract.js";
import type { StepRecorder } from "./step-recorder.js";
import type { Message, ToolCall, ToolSchema } from "./types.js";

/**
 * The registry's tools and the final-answer tool, for a model without native structured output: its parameters are
 * the output schema, and a call with valid arguments is the run's answer. The call is answered here (it has no
 * effect, so no permission check is asked); every other call goes to the registry.
 */
export function withFinalAnswerTool(registry: ToolExecutor, contract: OutputContract): ToolExecutor {
  const schema: ToolSchema = {
    name: finalAnswerName,
    description:
      "Give your final answer to the task: call this once the work is done, with the answer as the arguments. The run ends when it is accepted.",
    parameters: contract.wireSchema,
  };
  let cached: { from: ToolSchema[]; schemas: ToolSchema[] } | undefined;
  return {
    schemas: () => {
      const theirs = registry.schemas();
      if (cached?.from !== theirs) cached = { from: theirs, schemas: [...theirs, schema] };
      return cached.schemas;
    },
    execute: (call, options) => (call.name === finalAnswerName ? answerCall(call, options, contract) : registry.execute(call, options)),
    runsAlone: registry.runsAlone && ((call) => call.name !== finalAnswerName && (registry.runsAlone?.(call) ?? false)),
  };
}

async function answerCall(call: ToolCall, options: ToolExecuteOptions, contract: OutputContract): Promise<ToolOutcome> {
  if (options.offeredTools && !options.offeredTools.has(finalAnswerName))
    return { content: `Tool "${finalAnswerName}" is not available at this step.`, isError: true };
  const check = await checkCall(call, contract);
  if (check.ok) return { content: "Final answer accepted.", isError: false };
  return {
    content: `The final answer does not match its schema:\n${listProblems(check.problems)}\nCall ${finalAnswerName} again with a corrected answer.`,
    isError: true,
  };
}

function checkCall(call: ToolCall, contract: OutputContract): SchemaCheck | Promise<SchemaCheck> {
  if (call.argumentsError !== undefined) return { ok: false, problems: [call.argumentsError] };
  return contract.check(call.arguments);
}

/** A turn's `prepareTurn` that names the tools it offers also offers the final-answer tool: the model may answer at any turn. */
export function offerFinalAnswer(prepareTurn: PrepareTurn | undefined): PrepareTurn | undefined {
  if (!prepareTurn) return undefined;
  return async (context) => {
    const plan = await prepareTurn(context);
    if (!plan?.tools || plan.tools.includes(finalAnswerName)) return plan;
    return { ...plan, tools: [...plan.tools, finalAnswerName] };
  };
}

/** How one run checks its answers: the contract, which path the answer takes, and where the trajectory goes. */
export type AnswerCheckSettings = {
  contract: OutputContract;
  /** True when the model answers through native structured output (its text is the JSON), false for the tool. */
  native: boolean;
  recorder: StepRecorder;
};

/**
 * The `concludeTurn` of one run with an output schema. A turn ends the run when it brings a valid answer: an accepted
 * final-answer call, or a text that parses as JSON matching the schema (the native path's answer; on the tool path a
 * model that writes its answer as JSON text is taken at its word). A wrong answer is sent back (the final-answer
 * tool's result says what was wrong; a wrong text is followed by a user message saying it) and the run goes on, at
 * most `retries` times in this run; then the run fails with an OutputValidationError. A turn that only calls other
 * tools goes on as usual.
 */
export function createAnswerCheck({ contract, native, recorder }: AnswerCheckSettings): ConcludeTurn {
  let failures = 0;
  return async ({ turn, message, messages }): Promise<RunAnswer | undefined> => {
    const calls = message.toolCalls ?? [];
    const answers = calls.filter((call) => call.name === finalAnswerName);
    if (calls.length > 0 && answers.length === 0) return undefined;
    const attempt = answers.length > 0 ? await checkCalls(answers, contract) : await checkText(message.content, contract);
    if (attempt.check.ok) {
      if (answers.length > 0) recorder.recordFinal(turn, attempt.text);
      return { final: attempt.text, output: attempt.check.value };
    }
    const { problems } = attempt.check;
    failures++;
    if (answers.length === 0) recorder.recordRejectedAnswer(turn, `The answer does not match the output schema: ${problems.join("; ")}`);
    if (failures > contract.retries)
      throw new OutputValidationError(
        `The model's answer did not match the output schema after ${failures} attempt(s) (outputRetries: ${contract.retries}): ${problems.join("; ")}`,
        { problems, answer: attempt.text },
      );
    if (answers.length === 0) messages.push(feedback(problems, native));
    return undefined;
  };
}

type Attempt = { check: SchemaCheck; text: string };

/** The first accepted final-answer call of the turn, or the last one's problems. */
async function checkCalls(calls: readonly ToolCall[], contract: OutputContract): Promise<Attempt> {
  let attempt: Attempt | undefined;
  for (const call of calls) {
    const check = await checkCall(call, contract);
    attempt = { check, text: check.ok ? contract.answerText(call.arguments) : toText(call.arguments) };
    if (check.ok) return attempt;
  }
  return attempt as Attempt;
}

async function checkText(text: string, contract: OutputContract): Promise<Attempt> {
  const json = stripCodeFence(text);
  let sent: unknown;
  try {
    sent = JSON.parse(json);
  } catch (error) {
    return { check: { ok: false, problems: [`the answer is not JSON (${(error as Error).message})`] }, text };
  }
  return { check: await contract.check(sent), text: json };
}

/** A model that puts its JSON in a Markdown code block still means the JSON. */
function stripCodeFence(text: string): string {
  const fenced = /^\s*```[a-z]*\s*\n([\s\S]*?)\n\s*```\s*$/i.exec(text);
  return (fenced?.[1] ?? text).trim();
}

const feedbackOpening = "Your answer does not match the required output schema:";

function feedback(problems: readonly string[], native: boolean): Message {
  const how = native
    ? "Answer again with JSON only, matching the required schema."
    : `Give your final answer by calling the ${finalAnswerName} tool, with arguments matching its schema.`;
  return { role: "user", content: `${feedbackOpening}\n${listProblems(problems)}\n${how}` };
}

/**
 * Whether `message` is the engine's reply to a wrong answer (an output schema's), not a person's input: a pattern
 * that reads the conversation for its task (Plan-and-Solve) passes over it.
 */
export function isOutputFeedback(message: Message): boolean {
  return message.role === "user" && message.content.startsWith(`${feedbackOpening}\n`);
}

function listProblems(problems: readonly string[]): string {
  return problems.map((problem) => `- ${problem}`).join("\n");
}
