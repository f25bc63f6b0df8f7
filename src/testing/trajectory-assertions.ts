/**
 * Assertions about a run's trajectory. They throw node:assert's `AssertionError` (with `actual` and
 * `expected`, and a message that carries the diff), so they read the same in vitest, node:test, or jest.
 */
import { AssertionError } from "node:assert";
import { formatAction } from "../core/step-recorder.js";
import type { Message, RunResult, StepKind, ToolCall } from "../core/types.js";
import { toOneLine } from "../text.js";
import { show } from "./describe-differences.js";

/**
 * Asserts the kinds of the run's steps, in order (book 5.1: a ReAct run of the demo is
 * `thought, action, observation, thought, action, observation, final`).
 * @example assertStepKinds(result, ["action", "observation", "final"]);
 */
export function assertStepKinds(result: Pick<RunResult, "steps">, expected: readonly StepKind[]): void {
  const actual = result.steps.map((step) => step.kind);
  if (sameArray(actual, expected)) return;
  const steps = result.steps.map((step) => `  [${step.index}] ${step.kind.padEnd(11)} ${toOneLine(step.detail, 120)}`).join("\n");
  fail(
    `The run's step kinds differ from the expected ones.\n\n${diff(actual, expected)}\n\nSteps:\n${steps}`,
    actual,
    expected,
    "assertStepKinds",
  );
}

/**
 * Asserts that the model called `toolName` at least once with arguments that include `partialArguments`.
 * Objects match partially at every depth (only the keys given are checked), arrays element by element,
 * a RegExp tests a string, and an asymmetric matcher such as vitest's `expect.any(String)` decides for itself.
 * @example assertToolCalled(result, "weather", { city: "北京" });
 */
export function assertToolCalled(
  result: Pick<RunResult, "messages">,
  toolName: string,
  partialArguments: Record<string, unknown> = {},
): void {
  const calls = toolCalls(result.messages);
  const named = calls.filter((call) => call.name === toolName);
  if (named.some((call) => matches(call.arguments, partialArguments))) return;
  const wanted = `a call to tool "${toolName}"${Object.keys(partialArguments).length > 0 ? ` with arguments including ${show(partialArguments)}` : ""}`;
  const made = calls.length > 0 ? calls.map((call, i) => `  ${i + 1}. ${formatAction(call)}`).join("\n") : "  (none)";
  fail(
    `Expected ${wanted}.\n\nTool calls made:\n${made}`,
    named.map((call) => call.arguments),
    partialArguments,
    "assertToolCalled",
  );
}

/**
 * Asserts that no observation reports a failure (unknown tool, invalid arguments, a throw, a timeout):
 * no tool message has `isError`.
 */
export function assertNoErrorObservations(result: Pick<RunResult, "messages">): void {
  const failures = result.messages.filter((message) => message.role === "tool" && message.isError);
  if (failures.length === 0) return;
  const calls = new Map(toolCalls(result.messages).map((call) => [call.id, call]));
  const lines = failures.map((message) => {
    const call = message.toolCallId === undefined ? undefined : calls.get(message.toolCallId);
    return `  ${call ? formatAction(call) : `call ${message.toolCallId}`}\n    → ${toOneLine(message.content, 120)}`;
  });
  fail(`Expected no error observations, found ${failures.length}:\n${lines.join("\n")}`, failures, [], "assertNoErrorObservations");
}

/**
 * Asserts that the run converged, with a final answer, within `turns` model calls.
 * @example assertConvergedWithin(result, 3);
 */
export function assertConvergedWithin(result: Pick<RunResult, "steps">, turns: number): void {
  const final = result.steps.findLast((step) => step.kind === "final");
  const last = result.steps.at(-1);
  if (!final) {
    const ending = last ? `It ended with [${last.index}] ${last.kind}: ${toOneLine(last.detail, 120)}` : "It recorded no steps.";
    fail(
      `Expected the run to converge within ${turns} turn(s), but it never gave a final answer. ${ending}`,
      undefined,
      turns,
      "assertConvergedWithin",
    );
  }
  const used = final.index + 1;
  if (used <= turns) return;
  fail(`Expected the run to converge within ${turns} turn(s), but it took ${used}.`, used, turns, "assertConvergedWithin");
}

/**
 * Asserts the final answer: equal to a string, or matching a RegExp.
 * @example assertFinalAnswer(result, /北京晴/);
 */
export function assertFinalAnswer(result: Pick<RunResult, "final">, expected: string | RegExp): void {
  if (typeof expected === "string") {
    if (result.final === expected) return;
    fail(
      `The final answer differs from the expected one.\n\n${diff(result.final, expected, "strictEqual")}`,
      result.final,
      expected,
      "assertFinalAnswer",
    );
  }
  if (expected.test(result.final)) return;
  fail(`Expected the final answer to match ${String(expected)}, got ${show(result.final)}.`, result.final, expected, "assertFinalAnswer");
}

/** Throws an AssertionError. The operator is the assertion's name: node:assert appends a diff of its own to some operators' messages, and ours already holds one. */
function fail(message: string, actual: unknown, expected: unknown, operator: string): never {
  const error = new AssertionError({ message, actual, expected, operator });
  // Our message already holds the diff; vitest would print a second one from actual/expected.
  Object.assign(error, { showDiff: false });
  throw error;
}

/** node:assert's own "+ actual - expected" diff. */
function diff(actual: unknown, expected: unknown, operator = "deepStrictEqual"): string {
  return new AssertionError({ actual, expected, operator }).message;
}

function toolCalls(messages: readonly Message[]): ToolCall[] {
  return messages.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []) : []));
}

function matches(actual: unknown, pattern: unknown): boolean {
  if (pattern instanceof RegExp) return typeof actual === "string" && pattern.test(actual);
  if (isAsymmetricMatcher(pattern)) return pattern.asymmetricMatch(actual);
  if (Array.isArray(pattern)) {
    return Array.isArray(actual) && actual.length === pattern.length && pattern.every((item, i) => matches(actual[i], item));
  }
  if (typeof pattern === "object" && pattern !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return false;
    const record = actual as Record<string, unknown>;
    return Object.entries(pattern).every(([key, value]) => key in record && matches(record[key], value));
  }
  return Object.is(actual, pattern);
}

function isAsymmetricMatcher(value: unknown): value is { asymmetricMatch(actual: unknown): boolean } {
  return typeof value === "object" && value !== null && typeof (value as { asymmetricMatch?: unknown }).asymmetricMatch === "function";
}

function sameArray(left: readonly unknown[], right: readonly unknown[]): boolean {
  return left.length === right.length && left.every((item, i) => Object.is(item, right[i]));
}
