import type { SyntaxNode } from "./bash-parser.js";

/**
 * Expansions that make bash evaluate a value the line does not show. Arithmetic evaluates names recursively, so
 * `$((x))` runs `cmd` when x holds `a[$(cmd)]`; `${x@P}` expands x as a prompt, command substitutions included;
 * `${!x}` expands the variable x names (a subscript in that name is arithmetic); `$_` is the last word of the
 * command before, which an allowed `echo '$(cmd)'` sets. Such a line cannot be judged from its text.
 */

/** Transformations that only quote, describe or change the case of a value (`${x@Q}`). `@P` and `@E` are not. */
const harmlessTransformations: ReadonlySet<string> = new Set(["Q", "A", "K", "a", "k", "u", "U", "L"]);
/** `[[ a -eq b ]]` evaluates both sides as arithmetic (`test`/`[` do not: they only read numbers). */
const arithmeticTests: ReadonlySet<string> = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** Parameters whose value is always a number: `$#`, `$?`, `$$`, `$!`, and lengths (`${#x}`). */
const numericParameters = /\$[#?$!]|\$\{[#?$!]\}|\$\{#[A-Za-z_][A-Za-z0-9_]*\}/g;
/** Decimal, hexadecimal and base-N (`16#ff`) numbers, as whole tokens. */
const numberLiterals = /(?:0[xX][0-9A-Fa-f]+|[0-9]+#[0-9A-Za-z@_]+|[0-9]+)(?![0-9A-Za-z_@#])/g;
const operatorsOnly = /^[\s+\-*/%<>=!&|^~?:,()]*$/;
const plainName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const evaluates = "the variables and expansions in it, and a value like `a[$(…)]` runs a command";

/**
 * Whether an arithmetic expression holds only numbers and operators (`1+2`, `$# - 1`, `16#ff`): nothing in it
 * names a variable whose value could be evaluated in turn.
 */
export function isLiteralArithmetic(expression: string): boolean {
  return operatorsOnly.test(expression.replace(numericParameters, "0").replace(numberLiterals, ""));
}

/**
 * Whether a variable name as a builtin takes it (`printf -v NAME`, `read NAME`, `declare NAME=…`) is evaluated
 * harmlessly: a plain name, or an array element with a literal subscript (`a[0]`, `a[@]`). Returns why not.
 */
export function nameProblem(name: string): string | undefined {
  if (plainName.test(name)) return undefined;
  const element = /^([A-Za-z_][A-Za-z0-9_]*)\[(.*)\]$/s.exec(name);
  if (!element) return `the variable name \`${name}\` is only known when it runs, and an array subscript in it would be evaluated`;
  const index = element[2] as string;
  if (index === "@" || index === "*" || isLiteralArithmetic(index)) return undefined;
  return `it evaluates the array subscript in \`${name}\`, which can run commands`;
}

/** Why the parsed line holds an expansion that evaluates a value it does not show, or undefined. */
export function findEvaluatingExpansion(root: SyntaxNode, commandLine: string): string | undefined {
  const text = (node: SyntaxNode) => commandLine.slice(node.start, node.end);
  const visit = (node: SyntaxNode, parent: SyntaxNode | undefined, inTest: boolean): string | undefined => {
    const problem = evaluationIn(node, { parent, inTest, text });
    if (problem !== undefined) return problem;
    // `[[ … ]]` and `[ … ]` are both test commands to tree-sitter; only `[[` evaluates arithmetic.
    const test = node.type === "test_command" ? node.children[0]?.type === "[[" : inTest;
    for (const child of node.children) {
      const found = visit(child, node, test);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return visit(root, undefined, false);
}

/** Where a node is: its parent, whether it is inside `[[ … ]]`, and how to read a node's text. */
type Place = { parent: SyntaxNode | undefined; inTest: boolean; text: (node: SyntaxNode) => string };

function evaluationIn(node: SyntaxNode, { parent, inTest, text }: Place): string | undefined {
  const written = text(node);
  switch (node.type) {
    case "arithmetic_expansion":
    case "command_substitution": {
      // In a here-document tree-sitter reads `$((x))` as `$(` and a subshell: bash still evaluates it.
      const inner = written.startsWith("$((") ? written.slice(3, -2) : written.startsWith("$[") ? written.slice(2, -1) : undefined;
      if (inner === undefined || isLiteralArithmetic(inner)) return undefined;
      return `the arithmetic expansion \`${written}\` evaluates ${evaluates}`;
    }
    case "compound_statement": {
      if (node.children[0]?.type !== "((" || isLiteralArithmetic(written.slice(2, -2))) return undefined;
      return `the arithmetic command \`${written}\` evaluates ${evaluates}`;
    }
    case "c_style_for_statement": {
      const open = node.children.find((child) => child.type === "((");
      const close = node.children.find((child) => child.type === "))");
      if (!open || !close || isLiteralArithmetic(text({ ...open, start: open.end, end: close.start }).replaceAll(";", " ")))
        return undefined;
      return `the arithmetic of a \`for ((…))\` loop evaluates ${evaluates}`;
    }
    case "subscript": {
      const index = node.children.find((child) => child.field === "index");
      const expression = index ? text(index) : "";
      if (expression === "@" || expression === "*" || isLiteralArithmetic(expression)) return undefined;
      return `the array subscript in \`${written}\` is evaluated as arithmetic, which can run commands`;
    }
    case "special_variable_name":
      if (written !== "_" || (parent?.type !== "simple_expansion" && parent?.type !== "expansion")) return undefined;
      return "`$_` is the last word of the command run before, which can be any text";
    case "expansion":
      return parameterEvaluation(node, written, text);
    case "binary_expression": {
      const operator = node.children.find((child) => child.field === "operator");
      if (!inTest || operator?.type !== "test_operator" || !arithmeticTests.has(text(operator))) return undefined;
      const sides = node.children.filter((child) => child.field === "left" || child.field === "right");
      if (sides.every((side) => isLiteralArithmetic(text(side)))) return undefined;
      return `\`[[ ${written} ]]\` evaluates its operands as arithmetic: ${evaluates}`;
    }
    case "unary_expression": {
      const operator = node.children.find((child) => child.field === "operator");
      const operand = node.children[node.children.length - 1];
      if (operator?.type !== "test_operator" || !["-v", "-R"].includes(text(operator)) || !operand) return undefined;
      const problem = nameProblem(withoutPlainQuotes(text(operand)));
      return problem && `\`${written}\` tests a variable: ${problem}`;
    }
    case "array":
      for (const element of node.children) {
        const index = /^\[([^\]]*)\]\+?=/.exec(text(element))?.[1];
        if (index !== undefined && !isLiteralArithmetic(index))
          return `the array index in \`${text(element)}\` is evaluated as arithmetic, which can run commands`;
      }
      return undefined;
    default:
      return undefined;
  }
}

/** `${!x}`, `${x@P}`, `${x:offset:length}`: what re-expands or evaluates inside `${…}`. */
function parameterEvaluation(node: SyntaxNode, written: string, text: (node: SyntaxNode) => string): string | undefined {
  const parts = node.children.filter((child) => child.type !== "${" && child.type !== "}");
  if (parts[0]?.type === "!" && !isNameListing(parts.slice(1), text))
    return `the indirect expansion \`${written}\` expands the variable a value names, and a subscript in that name can run commands`;
  for (const [index, part] of parts.entries()) {
    if (part.field !== "operator") continue;
    const operator = text(part);
    const next = parts[index + 1];
    if (operator === "@" && next?.field === "operator" && /^[A-Za-z]$/.test(text(next)) && !harmlessTransformations.has(text(next)))
      return `the transformation \`${written}\` expands the value again (as a prompt or escapes), which can run commands`;
    if (operator === ":") {
      const close = node.children[node.children.length - 1];
      const offset = text({ ...part, start: part.end, end: close?.type === "}" ? close.start : node.end });
      if (!isLiteralArithmetic(offset)) return `the offset and length in \`${written}\` are evaluated as arithmetic: ${evaluates}`;
    }
  }
  return undefined;
}

/** `${!prefix*}`, `${!prefix@}`, `${!array[@]}`: names and keys listed, nothing expanded. */
function isNameListing(parts: readonly SyntaxNode[], text: (node: SyntaxNode) => string): boolean {
  const [name, operator] = parts;
  if (parts.length === 2 && name?.type === "variable_name" && (operator?.type === "*" || operator?.type === "@")) return true;
  if (parts.length !== 1 || name?.type !== "subscript") return false;
  const index = name.children.find((child) => child.field === "index");
  return index !== undefined && (text(index) === "@" || text(index) === "*");
}

/** `'a[0]'` and `"a[0]"` as the shell reads them, when nothing inside expands; other text as it is. */
function withoutPlainQuotes(written: string): string {
  if (/^'[^']*'$/.test(written) || /^"[^"$`\\]*"$/.test(written)) return written.slice(1, -1);
  return written;
}
