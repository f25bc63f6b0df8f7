import type { Tool } from "../../engine.js";
import { ToolError } from "../../errors.js";

/** Where a task stands. */
export type TodoStatus = "pending" | "in_progress" | "completed";

/** One item of the session's checklist. */
export type Todo = {
  /** The task, in the imperative: "Run the tests". */
  content: string;
  /** Where it stands. */
  status: TodoStatus;
  /** The task as it is being done, shown while it is in progress: "Running the tests". */
  activeForm: string;
};

/** The session's checklist, which the host reads (and may show); TodoWrite replaces `todos` whole on each call. */
export type TodoStore = {
  /** The current list, in the model's order. Replaced (never mutated) on each change. */
  todos: readonly Todo[];
  /** Called after each change with the new list and the one it replaced. */
  onChange?: ((todos: readonly Todo[], previous: readonly Todo[]) => void) | undefined;
};

/** Settings of {@link createTodoStore}. */
export type TodoStoreOptions = {
  /** The list to start with (default empty). */
  todos?: readonly Todo[] | undefined;
  /** Called after each change with the new list and the one it replaced. */
  onChange?: ((todos: readonly Todo[], previous: readonly Todo[]) => void) | undefined;
};

/**
 * A checklist store for {@link createTodoWriteTool}: a plain object the host keeps, reads, and may watch.
 * @example const store = createTodoStore({ onChange: (todos) => render(todos) });
 */
export function createTodoStore(options: TodoStoreOptions = {}): TodoStore {
  return { todos: Object.freeze([...(options.todos ?? [])]), onChange: options.onChange };
}

type TodoWriteArguments = { todos: Todo[] };

/**
 * Claude Code's `TodoWrite { todos: [{ content, status, activeForm }] }`: the model's checklist for the session,
 * replaced whole on each call and kept in `store` (a new one when none is given) for the host to read.
 *
 * At most one task may be `in_progress` (Claude Code asks for exactly one while work goes on): a list with more is
 * refused, and the store keeps the previous one, because "what is being done now" must have a single answer for
 * the host showing it. A list with pending tasks and none in progress is accepted with a reminder. The observation
 * counts the tasks by status and names the one in progress. Changes only the store, so it is read-only for the
 * workspace (plan mode allows it).
 * @example
 * const store = createTodoStore({ onChange: (todos) => console.log(todos) });
 * registry.add(createTodoWriteTool(store));
 */
export function createTodoWriteTool(store: TodoStore = createTodoStore()): Tool {
  return {
    name: "TodoWrite",
    description: [
      "Keep a checklist of the current task's steps, for work with several steps: send the whole list each time (it replaces the previous one).",
      "Each item has content (imperative: 'Run the tests'), activeForm (present continuous: 'Running the tests') and status.",
      "Keep exactly one item in_progress while you work; mark an item completed as soon as it is done, and add items you discover.",
      "Skip the list for a single simple step.",
    ].join(" "),
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        todos: {
          type: "array",
          description: "The complete, updated checklist.",
          items: {
            type: "object",
            properties: {
              content: { type: "string", minLength: 1, description: "The task, in the imperative." },
              status: { type: "string", enum: ["pending", "in_progress", "completed"] },
              activeForm: { type: "string", minLength: 1, description: "The task in the present continuous, shown while it runs." },
            },
            required: ["content", "status", "activeForm"],
          },
        },
      },
      required: ["todos"],
    },
    readOnly: true,
    execute: (args) => {
      const todos = (args as TodoWriteArguments).todos.map(({ content, status, activeForm }) => ({ content, status, activeForm }));
      const inProgress = todos.filter((todo) => todo.status === "in_progress");
      if (inProgress.length > 1)
        throw new ToolError(
          `The list was not saved: ${inProgress.length} tasks are in_progress (${inProgress.map((todo) => JSON.stringify(todo.content)).join(", ")}), and only one may be at a time. Keep the one you are working on in_progress, set the others to pending (or completed if done), and send the list again.`,
        );
      const previous = store.todos;
      store.todos = Object.freeze(todos);
      store.onChange?.(store.todos, previous);
      return summarize(store.todos);
    },
  };
}

function summarize(todos: readonly Todo[]): string {
  if (todos.length === 0) return "The todo list is now empty.";
  const count = (status: TodoStatus) => todos.filter((todo) => todo.status === status).length;
  const [completed, pending] = [count("completed"), count("pending")];
  const current = todos.find((todo) => todo.status === "in_progress");
  const counts = `${todos.length} task${todos.length === 1 ? "" : "s"}: ${completed} completed, ${current ? 1 : 0} in progress, ${pending} pending`;
  if (completed === todos.length) return `Todo list saved (${counts}). All tasks are completed.`;
  if (current) return `Todo list saved (${counts}). Now: ${current.activeForm}. Keep the list up to date as you go.`;
  return `Todo list saved (${counts}). Nothing is in progress: mark the task you start next as in_progress.`;
}
