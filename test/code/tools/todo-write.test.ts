import { describe, expect, it, vi } from "vitest";
import { createTodoStore, createTodoWriteTool, type Todo } from "../../../src/code/tools/todo-write.js";
import { callTool } from "../helpers/call-tool.js";

const task = (content: string, status: Todo["status"]): Todo => ({ content, status, activeForm: `${content}ing` });

describe("TodoWrite", () => {
  it("replaces the store's list whole, tells the host, and summarises the list", async () => {
    const onChange = vi.fn();
    const store = createTodoStore({ onChange });
    const tool = createTodoWriteTool(store);
    const first = [task("Read", "completed"), task("Fix", "in_progress"), task("Test", "pending")];
    expect(await callTool(tool, { todos: first })).toEqual({
      content: "Todo list saved (3 tasks: 1 completed, 1 in progress, 1 pending). Now: Fixing. Keep the list up to date as you go.",
      isError: false,
    });
    expect(store.todos).toEqual(first);
    expect(Object.isFrozen(store.todos)).toBe(true);
    expect(onChange).toHaveBeenCalledWith(first, []);

    const second = [task("Test", "in_progress")];
    await callTool(tool, { todos: second });
    expect(store.todos).toEqual(second); // replaced, not merged
    expect(onChange).toHaveBeenLastCalledWith(second, first);
    expect(tool.readOnly).toBe(true);
  });

  it("refuses more than one task in progress and keeps the previous list", async () => {
    const store = createTodoStore({ todos: [task("Plan", "in_progress")] });
    const onChange = vi.fn();
    store.onChange = onChange;
    expect(await callTool(createTodoWriteTool(store), { todos: [task("Fix", "in_progress"), task("Test", "in_progress")] })).toEqual({
      content:
        'The list was not saved: 2 tasks are in_progress ("Fix", "Test"), and only one may be at a time. Keep the one you are working on in_progress, set the others to pending (or completed if done), and send the list again.',
      isError: true,
    });
    expect(store.todos).toEqual([task("Plan", "in_progress")]);
    expect(onChange).not.toHaveBeenCalled();
  });

  it("reminds the model when nothing is in progress, says when all is done, and accepts an empty list", async () => {
    const tool = createTodoWriteTool();
    expect((await callTool(tool, { todos: [task("Fix", "pending")] })).content).toBe(
      "Todo list saved (1 task: 0 completed, 0 in progress, 1 pending). Nothing is in progress: mark the task you start next as in_progress.",
    );
    expect((await callTool(tool, { todos: [task("Fix", "completed"), task("Test", "completed")] })).content).toBe(
      "Todo list saved (2 tasks: 2 completed, 0 in progress, 0 pending). All tasks are completed.",
    );
    expect((await callTool(tool, { todos: [] })).content).toBe("The todo list is now empty.");
  });

  it("validates items against the schema: status values, required activeForm, non-empty content", async () => {
    const store = createTodoStore();
    const tool = createTodoWriteTool(store);
    const bad = [
      { todos: [{ content: "Fix", status: "doing", activeForm: "Fixing" }] },
      { todos: [{ content: "Fix", status: "pending" }] },
      { todos: [{ content: "", status: "pending", activeForm: "x" }] },
      { todos: "Fix everything" },
    ];
    for (const args of bad) {
      const result = await callTool(tool, args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(result.content).toMatch(/^Invalid arguments for tool "TodoWrite"/);
    }
    expect(store.todos).toEqual([]);
  });

  it("keeps only the known fields of each item (older models send id and priority)", async () => {
    const store = createTodoStore();
    await callTool(createTodoWriteTool(store), { todos: [{ id: "1", priority: "high", ...task("Fix", "pending") }] });
    expect(store.todos).toEqual([task("Fix", "pending")]);
  });
});
