import { ToolError } from "../../errors.js";
import { defineTool } from "../../tools/tool.js";

/**
 * Arithmetic for the model: + - * / % ^, parentheses and decimals. Parsed by hand (never `eval`),
 * so a model can compute but not run code.
 */
export const calculatorTool = defineTool({
  name: "calculator",
  description:
    "Evaluates an arithmetic expression with + - * / % ^ and parentheses, e.g. (17 * 23) / 4. Use it instead of computing in your head.",
  parameters: {
    type: "object",
    properties: { expression: { type: "string", description: "The expression, e.g. 2 ^ 10 - 24" } },
    required: ["expression"],
    additionalProperties: false,
  },
  readOnly: true,
  execute: ({ expression }) => formatNumber(evaluate(String(expression))),
});

/** Evaluates an arithmetic expression; throws a ToolError the model can read when it cannot. */
export function evaluate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+|[-+*/%^()]|\S/gi) ?? [];
  let position = 0;
  const peek = () => tokens[position];
  const take = () => tokens[position++];
  const fail = (problem: string): never => {
    throw new ToolError(`Cannot evaluate ${JSON.stringify(expression)}: ${problem}. Use numbers, + - * / % ^ and parentheses.`);
  };

  // Grammar: sum := product (("+"|"-") product)*; product := power (("*"|"/"|"%") power)*;
  // power := unary ("^" power)?; unary := "-" unary | "+" unary | atom; atom := number | "(" sum ")".
  function sum(): number {
    let value = product();
    while (peek() === "+" || peek() === "-") value = take() === "+" ? value + product() : value - product();
    return value;
  }
  function product(): number {
    let value = power();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const operator = take();
      const right = power();
      value = operator === "*" ? value * right : operator === "/" ? value / right : value % right;
    }
    return value;
  }
  function power(): number {
    const base = unary();
    if (peek() !== "^") return base;
    take();
    return base ** power();
  }
  function unary(): number {
    const sign = peek();
    if (sign !== "-" && sign !== "+") return atom();
    take();
    return sign === "-" ? -unary() : unary();
  }
  function atom(): number {
    const token = take();
    if (token === undefined) return fail("it ends too early");
    if (token === "(") {
      const value = sum();
      if (take() !== ")") fail("a parenthesis is not closed");
      return value;
    }
    const value = Number(token);
    return Number.isFinite(value) ? value : fail(`unexpected ${JSON.stringify(token)}`);
  }

  if (tokens.length === 0) fail("it is empty");
  const value = sum();
  if (position < tokens.length) fail(`unexpected ${JSON.stringify(peek())}`);
  if (!Number.isFinite(value)) fail("the result is not a finite number (division by zero?)");
  return value;
}

function formatNumber(value: number): string {
  // Round away binary noise such as 0.1 + 0.2 = 0.30000000000000004.
  return String(Number.parseFloat(value.toPrecision(15)));
}
