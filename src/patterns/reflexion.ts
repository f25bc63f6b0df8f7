import {
  Agent,
  type AgentOptions,
  combineSignals,
  type Model,
  RunContext,
  type RunOptions,
  type RunResult,
  type Step,
  type ToolExecutor,
  ToolRegistry,
  UsageError,
} from "../engine.js";

/** A verdict on one trial. */
export type Evaluation = { pass: boolean; feedback?: string | undefined };

/** Settings of a ReflexionAgent: an Agent's, plus the evaluator and the number of trials. */
export type ReflexionOptions = AgentOptions & {
  /** Judges a trial's result (sync or async). See {@link llmJudge} for a model-based judge. */
  evaluate: (result: RunResult) => Evaluation | Promise<Evaluation>;
  /** Trials at most, the first included (default 3). */
  maxTrials?: number | undefined;
  /** The instruction that asks for a self-reflection after a failed trial; the evaluator's feedback follows it. */
  reflectPrompt?: string | undefined;
};

/** A Reflexion run: the last trial's result, how many trials ran, whether one passed, and the reflections written. */
export type ReflexionResult = RunResult & { trials: number; passed: boolean; reflections: string[] };

const defaultReflectPrompt =
  "Your attempt was judged a failure. In a few sentences, reflect on what went wrong and what you will do differently next time. Do not retry yet.";

/**
 * Reflexion (book 5.3): run a trial; `evaluate` judges it; on failure the model writes a self-reflection
 * (a `reflection` step) that joins an episodic memory the next trial sees; up to `maxTrials`.
 * A run that never passes returns the last trial's answer with `passed: false`, not an exception.
 * The whole is one run: every trial and every reflection is a child run of it (one trace, one usage).
 */
export class ReflexionAgent {
  readonly model: Model;
  readonly #actor: Agent;
  readonly #reflector: Agent;
  readonly #options: ReflexionOptions;

  constructor(model: Model, registry: ToolExecutor, options: ReflexionOptions) {
    if (typeof options?.evaluate !== "function")
      throw new UsageError("ReflexionAgent needs options.evaluate: (result) => ({ pass, feedback }).");
    this.model = model;
    this.#options = options;
    // The children report through this run: listeners and the signal are the parent's, not theirs.
    const childOptions = { ...options, onEvent: undefined, signal: undefined };
    this.#actor = new Agent(model, registry, childOptions);
    this.#reflector = new Agent(model, new ToolRegistry(), { ...childOptions, maxSteps: 1 });
  }

  /** Runs trials until one passes or `maxTrials` is reached. */
  async run(input: string, options: RunOptions = {}): Promise<ReflexionResult> {
    const maxTrials = this.#options.maxTrials ?? 3;
    const run = new RunContext({
      parent: options.parent,
      signal: combineSignals(this.#options.signal, options.signal),
      listeners: [this.#options.onEvent, options.onEvent],
    });
    run.start(input, options.history ?? [], this.model, options.name);
    const child = { parent: run, ...(options.stream !== undefined && { stream: options.stream }) };
    const steps: Step[] = [];
    const reflections: string[] = [];
    let turns = 0;
    const record = (recorded: readonly Step[], runTurns: number) => {
      for (const step of recorded) steps.push({ ...step, index: step.index + turns });
      turns += runTurns;
    };
    try {
      for (let trial = 1; ; trial++) {
        const attempt = await this.#actor.run(withMemory(input, reflections), {
          ...child,
          history: options.history,
          name: `trial ${trial}`,
        });
        record(attempt.steps, attempt.turns);
        // An attempt that waits for approval cannot be judged: the run stops here, as the trial did.
        const evaluation = attempt.status === "interrupted" ? { pass: false } : await this.#options.evaluate(attempt);
        if (evaluation.pass || trial >= maxTrials || attempt.status === "interrupted") {
          const usage = { ...run.usage };
          run.end({ status: attempt.status, final: attempt.final, turns, usage });
          return { ...attempt, runId: run.runId, steps, usage, turns, trials: trial, passed: evaluation.pass, reflections };
        }
        const feedback = evaluation.feedback ? `\n\nFeedback: ${evaluation.feedback}` : "";
        const reflection = await this.#reflector.run(`${this.#options.reflectPrompt ?? defaultReflectPrompt}${feedback}`, {
          ...child,
          history: attempt.messages,
          name: `reflection ${trial}`,
        });
        reflections.push(reflection.final);
        record([{ index: 0, kind: "reflection", detail: reflection.final }], reflection.turns);
      }
    } catch (error) {
      run.fail(error);
      throw error;
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
