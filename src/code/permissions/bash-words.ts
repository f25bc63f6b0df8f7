import type { SyntaxNode } from "./bash-parser.js";
import type { BashAssignment, BashWord } from "./bash-word-types.js";

const unknownCharacter = "\u0001";
/** What a process substitution becomes on Linux (macOS: a pipe under /dev/fd too). */
export const processSubstitutionPath = "/dev/fd/63";

/** An assignment's name, its value when no expansion decides it, and its text. */
export function readAssignment(node: SyntaxNode, commandLine: string): BashAssignment {
  const name = node.children.find((child) => child.field === "name");
  const value = node.children.find((child) => child.field === "value");
  const appends = node.children.some((child) => child.type === "+=");
  return {
    name: name ? commandLine.slice(name.start, name.end) : "",
    // `A+=x` depends on A's value; `A=` is empty.
    value: appends ? undefined : value ? readWord(value, commandLine).value : "",
    text: commandLine.slice(node.start, node.end),
  };
}

/** An assignment written as an argument (`export A=1`), as a word. */
export function assignmentWord(node: SyntaxNode, commandLine: string): BashWord {
  const assignment = readAssignment(node, commandLine);
  return {
    text: assignment.text,
    value: assignment.value === undefined ? undefined : `${assignment.name}=${assignment.value}`,
    glob: false,
  };
}

/** A word's text, its value when no expansion decides it, and whether it globs. */
export function readWord(node: SyntaxNode, commandLine: string): BashWord {
  const text = commandLine.slice(node.start, node.end);
  // The shell passes `<(…)` and `>(…)` on as a pipe's path; the command inside is judged on its own.
  if (node.type === "process_substitution") return { text, value: processSubstitutionPath, glob: false };
  const state = { value: "", unquoted: "", known: true };
  appendWord(node, commandLine, state);
  // `unquoted` keeps what the shell sees outside quotes: a leading `~` and `{a,b}` there are expansions.
  const expands = state.unquoted.startsWith("~") || /\{[^{}]*(,|\.\.)[^{}]*\}/.test(state.unquoted);
  return { text, value: state.known && !expands ? state.value : undefined, glob: /[*?[]/.test(state.unquoted) };
}

type WordState = { value: string; unquoted: string; known: boolean };

function appendWord(node: SyntaxNode, commandLine: string, state: WordState): void {
  const text = commandLine.slice(node.start, node.end);
  switch (node.type) {
    case "word":
    case "number":
    case "variable_name":
    case "export":
    case "declare":
    case "local":
    case "readonly":
    case "typeset":
    case "unset":
    case "unsetenv":
      if (node.children.length > 0) appendParts(node, commandLine, state);
      else appendUnquoted(text, state);
      return;
    case "raw_string":
      state.value += text.slice(1, -1);
      state.unquoted += unknownCharacter.repeat(Math.max(0, text.length - 2));
      return;
    case "string": {
      let position = node.start + 1;
      for (const child of node.children) {
        if (child.type === '"') continue;
        if (child.type !== "string_content") state.known = false;
        appendDoubleQuoted(commandLine.slice(position, child.start), state);
        appendDoubleQuoted(commandLine.slice(child.start, child.end), state);
        position = child.end;
      }
      appendDoubleQuoted(commandLine.slice(position, Math.max(position, node.end - 1)), state);
      return;
    }
    case "concatenation":
    case "command_name":
      appendParts(node, commandLine, state);
      return;
    default:
      // $X, ${X}, $(…), `…`, $((…)), $'…', $"…", <(…), brace expressions: decided when the command runs.
      state.known = false;
      state.unquoted += unknownCharacter;
  }
}

function appendParts(node: SyntaxNode, commandLine: string, state: WordState): void {
  let position = node.start;
  for (const child of node.children) {
    appendUnquoted(commandLine.slice(position, child.start), state);
    appendWord(child, commandLine, state);
    position = child.end;
  }
  appendUnquoted(commandLine.slice(position, node.end), state);
}

function appendUnquoted(text: string, state: WordState): void {
  for (let index = 0; index < text.length; index++) {
    const character = text[index] as string;
    if (character === "\\" && index + 1 < text.length) {
      index++;
      if (text[index] === "\n") continue;
      state.value += text[index];
      state.unquoted += unknownCharacter;
    } else {
      state.value += character;
      state.unquoted += character;
    }
  }
}

function appendDoubleQuoted(text: string, state: WordState): void {
  for (let index = 0; index < text.length; index++) {
    const character = text[index] as string;
    const next = text[index + 1];
    if (character === "\\" && next !== undefined && '$`"\\\n'.includes(next)) {
      index++;
      if (next !== "\n") state.value += next;
    } else state.value += character;
    state.unquoted += unknownCharacter;
  }
}
