import {
  Agent,
  type AgentOptions,
  type Model,
  type RunOptions,
  type RunResult,
  type ToolExecutor,
  ToolRegistry,
  UsageError,
} from "../engine.js";
import { continueRun, joinRuns, type RunPart } from "./run-parts.js";

/** A verdict on one trial. */
export type Evaluation = { pass: boolean; feedback?: string };

/** Settings of a ReflexionAgent: an Agent's, plus the evaluator and the number of trials. */
export type ReflexionOptions = AgentOptions & {
  /** Judges a trial's result (sync or async). See {@link llmJudge} for a model-based judge. */
  evaluate: (result: RunResult) => Evaluation | Promise<Evaluation>;
  /** Trials at most, the first included (default 3). */
  maxTrials?: number;
  /** The instruction that asks for a self-reflection after a failed trial; the evaluator's feedback follows it. */
  reflectPrompt?: string;
};

/** A Reflexion run: the last trial's result, how many trials ran, whether one passed, and the reflections written. */
export type ReflexionResult = RunResult & { trials: number; passed: boolean; reflections: string[] };

const defaultReflectPrompt =
  "Your attempt was judged a failure. In a few sentences, reflect on what went wrong and what you will do differently next time. Do not retry yet.";

/**
 * Reflexion (book 5.3): run a trial; `evaluate` judges it; on failure the model writes a self-reflection
 * (a `reflection` step) that joins an episodic memory the next trial sees; up to `maxTrials`.
 * A run that never passes returns the last trial's answer with `passed: false`, not an exception.
 */
export class ReflexionAgent {
  readonly #actor: Agent;
  readonly #reflector: Agent;
  readonly #options: ReflexionOptions;

  constructor(model: Model, registry: ToolExecutor, options: ReflexionOptions) {
    if (typeof options?.evaluate !== "function")
      throw new UsageError("ReflexionAgent needs options.evaluate: (result) => ({ pass, feedback }).");
    this.#options = options;
    this.#actor = new Agent(model, registry, options);
    this.#reflector = new Agent(model, new ToolRegistry(), { ...options, maxSteps: 1 });
  }

  /** Runs trials until one passes or `maxTrials` is reached. */
  async run(input: string, options: RunOptions = {}): Promise<ReflexionResult> {
    const maxTrials = this.#options.maxTrials ?? 3;
    const parts: RunPart[] = [];
    const reflections: string[] = [];
    for (let trial = 1; ; trial++) {
      const attempt = await continueRun(this.#actor, withMemory(input, reflections), [], options);
      parts.push(attempt);
      const evaluation = await this.#options.evaluate(attempt.result);
      if (evaluation.pass || trial >= maxTrials) {
        return { ...joinRuns(parts, attempt), final: attempt.result.final, trials: trial, passed: evaluation.pass, reflections };
      }
      const feedback = evaluation.feedback ? `\n\nFeedback: ${evaluation.feedback}` : "";
      const reflection = await continueRun(
        this.#reflector,
        `${this.#options.reflectPrompt ?? defaultReflectPrompt}${feedback}`,
        parts,
        options,
      );
      reflections.push(reflection.result.final);
      const steps = [{ index: 0, kind: "reflection", detail: reflection.result.final }];
      parts.push({ ...reflection, result: { ...reflection.result, steps } });
    }
  }
}

/** The task, followed by the episodic memory of earlier reflections. */
function withMemory(input: string, reflections: readonly string[]): string {
  if (reflections.length === 0) return input;
  const memory = reflections.map((reflection, i) => `${i + 1}. ${reflection}`).join("\n");
  return `${input}\n\nReflections on your earlier attempts at this task (learn from them):\n${memory}`;
}

/** Settings of {@link llmJudge}. */
export type LlmJudgeOptions = {
  /** What a good answer must satisfy, in plain words. */
  criteria: string;
};

/**
 * An `evaluate` function that asks a model to judge the final answer against `criteria`. The judge is told
 * to answer "PASS" or "FAIL: <feedback>" on its first line.
 */
export function llmJudge(model: Model, { criteria }: LlmJudgeOptions): (result: RunResult) => Promise<Evaluation> {
  const judge = new Agent(model, new ToolRegistry(), {
    system: 'You judge answers. Reply "PASS" if the answer meets the criteria; otherwise "FAIL: " followed by what is wrong.',
    maxSteps: 1,
  });
  return async (result) => {
    const verdict = (await judge.run(`Criteria: ${criteria}\n\nAnswer to judge:\n${result.final}`)).final.trim();
    if (/^PASS\b/i.test(verdict)) return { pass: true };
    return { pass: false, feedback: verdict.replace(/^FAIL\s*:?\s*/i, "") || "The judge gave no reason." };
  };
}
