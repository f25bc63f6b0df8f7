import type { CodePermissions } from "../permissions/index.js";
import type { Todo } from "../tools/todo-write.js";

/**
 * The permission state in a few lines, for `createCompactor({ permissions })`: the mode and the rules in force.
 * @example createCompactor({ model, permissions: () => describePermissions(agent.permissions) })
 */
export function describePermissions(permissions: Pick<CodePermissions, "mode" | "settings">): string {
  const { rules } = permissions.settings;
  const list = (name: "allow" | "ask" | "deny") =>
    `${name}: ${rules[name].length ? rules[name].map((rule) => rule.text).join(", ") : "none"}`;
  return [`Permission mode: ${permissions.mode}`, `Rules — ${list("deny")}; ${list("ask")}; ${list("allow")}`].join("\n");
}

const marks = { completed: "[x]", in_progress: "[>]", pending: "[ ]" } as const;

/**
 * The todo list one item a line (`[x]` done, `[>]` in progress, `[ ]` pending), for `createCompactor({ todos })`;
 * undefined when the list is empty.
 * @example createCompactor({ model, todos: () => describeTodos(agent.todos.todos) })
 */
export function describeTodos(todos: readonly Todo[]): string | undefined {
  if (todos.length === 0) return undefined;
  return todos.map((todo) => `${marks[todo.status] ?? "[ ]"} ${todo.content}`).join("\n");
}
