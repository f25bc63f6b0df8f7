import { findEvaluatingExpansion } from "./bash-expansions.js";
import type { BashParser, SyntaxNode } from "./bash-parser.js";
import type { BashAssignment, BashWord } from "./bash-word-types.js";
import { assignmentWord, readAssignment, readWord } from "./bash-words.js";
import { directoryCommands } from "./command-kinds.js";
import { findUnjudgeable } from "./command-runners.js";
import { stripWrappers } from "./command-wrappers.js";
import { normalizeCommandText } from "./parse-rule.js";

/** One simple command of a command line: a pipeline's stage, a list's member, a `$(…)`'s body… */
export type BashCommand = {
  /**
   * The words that run, once prefix assignments and wrappers (`timeout 30`, `nice`, `env FOO=1`) are taken off:
   * what allow rules and the modes judge. Empty for `FOO=1` alone. A wrapper written as a path stays (`./env rm x`).
   */
  words: readonly BashWord[];
  /** The same with wrappers written as paths taken off too (`/usr/bin/env rm x` runs `rm x`): what deny and ask rules see. */
  runs: readonly BashWord[];
  /** Its prefix assignments, and those `env` makes. */
  assignments: readonly BashAssignment[];
  /** The whole command as written — assignments, wrappers, words; not its redirections — blanks collapsed. */
  text: string;
  /** Its words as written, joined by one space: what allow rules match. */
  written: string;
  /** The same with quotes and escapes removed where that is known: `'r'm -rf x` is `rm -rf x`. */
  unquoted: string;
  /** Why it cannot be judged (`eval`, `bash -c`, `xargs`, a `$CMD` name, `/usr/bin/env sh`), or undefined. */
  unjudgeable: string | undefined;
  /** Its offset in the command line. */
  start: number;
};

/** A redirection to or from a file (`> out.txt`, `2>> log`, `< input`); `2>&1` and here-documents are not. */
export type BashRedirect = { access: "read" | "write"; target: BashWord; start: number };

/** A command line taken apart. */
export type BashAnalysis = {
  /** The command line, blanks collapsed: deny and ask rules are matched against it as well as against each part. */
  text: string;
  /** Every simple command, wherever it is: lists, pipelines, subshells, `$(…)`, backticks, `<(…)`, here-documents, functions. */
  commands: readonly BashCommand[];
  /** Every redirection to or from a file. */
  redirects: readonly BashRedirect[];
  /**
   * Why the line as a whole cannot be judged (a syntax error, a construct the parser cannot place, an expansion
   * that evaluates a value it does not show: `$((x))`, `${x@P}`, `${!x}`, `$_`), or undefined.
   */
  unjudgeable: string | undefined;
  /** Offset of the first `cd`, `pushd` or `popd`: relative paths after it are relative to a directory not known here. */
  directoryChangeAt: number | undefined;
};

const repeatingStatements = new Set(["for_statement", "c_style_for_statement", "while_statement", "function_definition"]);
const redirectOperators = new Set(["<", ">", ">>", "&>", "&>>", "<&", ">&", ">|", "<&-", ">&-"]);

/**
 * Splits a command line into simple commands with a real shell parser (tree-sitter-bash) and reads each one's
 * words, assignments and redirections. A line the parser cannot read without errors is still walked — deny rules
 * see what could be read — and marked unjudgeable.
 */
export function analyzeBashCommand(parser: BashParser, commandLine: string): BashAnalysis {
  const { root, broken } = parser.parse(commandLine);
  const reader = new CommandLineReader(commandLine, broken);
  reader.visit(root);
  const analysis = reader.analysis();
  return { ...analysis, unjudgeable: analysis.unjudgeable ?? findEvaluatingExpansion(root, commandLine) };
}

/** Walks a parsed line once, collecting its simple commands and redirections. */
class CommandLineReader {
  readonly #line: string;
  readonly #commands: BashCommand[] = [];
  readonly #redirects: BashRedirect[] = [];
  #unjudgeable: string | undefined;
  #directoryChangeAt: number | undefined;
  /** Where the loops and function bodies being walked start: a `cd` in one moves what runs before it too, next time. */
  readonly #repeated: number[] = [];

  constructor(line: string, broken: boolean) {
    this.#line = line;
    this.#unjudgeable = broken ? "it could not be parsed as a shell command" : undefined;
  }

  analysis(): BashAnalysis {
    return {
      text: normalizeCommandText(this.#line),
      commands: this.#commands,
      redirects: this.#redirects,
      unjudgeable: this.#unjudgeable,
      directoryChangeAt: this.#directoryChangeAt,
    };
  }

  visit(node: SyntaxNode): void {
    const { type, children } = node;
    if (type === "command") this.#visitCommand(node, []);
    else if (type === "redirected_statement") {
      const body = children.find((child) => child.field === "body");
      const redirections = children.filter((child) => child !== body);
      if (body?.type === "command") this.#visitCommand(body, redirections);
      else for (const child of children) child === body ? this.visit(child) : this.#visitRedirect(child, undefined);
    } else if (type === "declaration_command" || type === "unset_command") this.#visitDeclaration(node);
    else if (type === "variable_assignment") this.#addCommand([node], [], node.start);
    else if (type === "variable_assignments")
      this.#addCommand(
        children.filter((child) => child.type === "variable_assignment"),
        [],
        node.start,
      );
    else if (type === "file_redirect" || type === "herestring_redirect") this.#visitRedirect(node, undefined);
    else if (repeatingStatements.has(type)) {
      this.#repeated.push(node.start);
      this.#visitInside(node);
      this.#repeated.pop();
    } else if (type !== "comment") this.#visitInside(node);
  }

  #visitInside(node: SyntaxNode): void {
    for (const child of node.children) this.visit(child);
  }

  #visitCommand(node: SyntaxNode, redirections: readonly SyntaxNode[]): void {
    const assignments: SyntaxNode[] = [];
    const words: SyntaxNode[] = [];
    for (const child of node.children) {
      if (child.type === "variable_assignment") assignments.push(child);
      else if (child.field === "redirect" || child.type.endsWith("_redirect")) this.#visitRedirect(child, words);
      else if (child.field === "name" || child.field === "argument") words.push(child);
      else this.visit(child);
    }
    for (const redirection of redirections) this.#visitRedirect(redirection, words);
    words.sort((first, second) => first.start - second.start);
    this.#addCommand(assignments, words, node.start);
  }

  /** `export A=1 B=$(x)`: a command named export whose arguments are the assignments as written. */
  #visitDeclaration(node: SyntaxNode): void {
    const words: SyntaxNode[] = [];
    for (const child of node.children) {
      if (child.field === "redirect" || child.type.endsWith("_redirect")) this.#visitRedirect(child, undefined);
      else if (child.type !== "comment") words.push(child);
    }
    this.#addCommand([], words, node.start);
  }

  #addCommand(assignmentNodes: readonly SyntaxNode[], wordNodes: readonly SyntaxNode[], start: number): void {
    const line = this.#line;
    const prefix = assignmentNodes.map((node) => readAssignment(node, line));
    const original = wordNodes.map((node) => (node.type === "variable_assignment" ? assignmentWord(node, line) : readWord(node, line)));
    for (const node of [...assignmentNodes, ...wordNodes]) this.#visitInside(node);
    const assignments = [...prefix];
    const { words, runs, unjudgeable } = stripWrappers(original, assignments);
    const name = runs[0]?.value;
    if (name !== undefined && directoryCommands.has(name)) {
      const at = this.#repeated[0] ?? start;
      this.#directoryChangeAt = Math.min(this.#directoryChangeAt ?? at, at);
    }
    this.#commands.push({
      words,
      runs,
      assignments,
      text: normalizeCommandText([...prefix.map((assignment) => assignment.text), ...original.map((word) => word.text)].join(" ")),
      written: normalizeCommandText(words.map((word) => word.text).join(" ")),
      unquoted: words.map((word) => word.value ?? word.text).join(" "),
      unjudgeable: unjudgeable ?? findUnjudgeable(runs),
      start,
    });
  }

  #visitRedirect(node: SyntaxNode, owner: SyntaxNode[] | undefined): void {
    if (node.type !== "file_redirect") {
      this.#visitInside(node);
      return;
    }
    const operator = node.children.find((child) => redirectOperators.has(child.type))?.type;
    const destinations = node.children.filter((child) => child.field === "destination");
    // `rm > /dev/null -rf x`: the grammar hangs `-rf x` on the redirection; to the shell they are arguments.
    if (destinations.length > 1) {
      if (owner) owner.push(...destinations.slice(1));
      else this.#unjudgeable ??= "a redirection is followed by words that belong to no command";
    }
    for (const destination of destinations) this.#visitInside(destination);
    const target = destinations[0];
    if (!operator || !target || target.type === "process_substitution" || operator === "<&-" || operator === ">&-") return;
    const word = readWord(target, this.#line);
    if ((operator === ">&" || operator === "<&") && (word.value === "-" || /^\d+$/.test(word.value ?? ""))) return;
    this.#redirects.push({ access: operator.startsWith("<") ? "read" : "write", target: word, start: node.start });
  }
}
