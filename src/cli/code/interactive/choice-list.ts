import type { Key } from "./keys.js";
import type { Terminal } from "./terminal.js";
import { truncateToWidth } from "./text-width.js";

/** One answer of a {@link chooseOne} list. */
export type Choice<T> = {
  label: string;
  /** A key that picks it at once ("y", "n"…); its number in the list always does too. */
  key?: string | undefined;
  value: T;
};

/** What a {@link chooseOne} came to: a choice, Escape, Ctrl-C, or its signal. */
export type ChoiceOutcome<T> = { value: T } | { cancelled: "escape" | "ctrl-c" | "aborted" };

/**
 * Shows `title` lines and a numbered list, and waits for a choice: ↑/↓ and Enter, a choice's number or key. The list
 * and its title are erased afterwards: the caller prints what should stay.
 */
export function chooseOne<T>(
  terminal: Terminal,
  options: {
    title: readonly string[];
    choices: readonly Choice<T>[];
    footer?: string | undefined;
    selected?: number | undefined;
    /** Takes the list off the screen with `{ cancelled: "aborted" }` (the run it asks for was stopped). */
    signal?: AbortSignal | undefined;
  },
): Promise<ChoiceOutcome<T>> {
  const { title, choices, footer } = options;
  const { style } = terminal;
  let selected = options.selected ?? 0;
  let drawnChoiceRows = 0;
  const line = (text: string) => `${truncateToWidth(text, terminal.columns - 1)}\r\n`;
  // The first drawing writes the title with the choices: one write, so no screen ever shows a question without them.
  const drawChoices = (before = "") => {
    let output = before + (drawnChoiceRows > 0 ? `\r\x1b[${drawnChoiceRows}A\x1b[J` : "");
    choices.forEach((choice, index) => {
      const text = `${index === selected ? "›" : " "} ${index + 1}. ${choice.label}`;
      output += index === selected ? style.cyan(line(text)) : line(text);
    });
    if (footer) output += style.dim(line(footer));
    drawnChoiceRows = choices.length + (footer ? 1 : 0);
    terminal.write(output + terminal.statusDrawing());
  };
  drawChoices(title.map(line).join(""));
  const erase = () => terminal.eraseRowsAbove(title.length + drawnChoiceRows);
  return new Promise((resolve) => {
    const finish = (outcome: ChoiceOutcome<T>) => {
      release();
      options.signal?.removeEventListener("abort", onAbort);
      erase();
      resolve(outcome);
    };
    const onAbort = () => finish({ cancelled: "aborted" });
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const release = terminal.pushKeys((key: Key) => {
      if (key.name === "escape" || key.name === "ctrl-c") return finish({ cancelled: key.name });
      if (key.name === "enter") return finish({ value: (choices[selected] as Choice<T>).value });
      if (key.name === "up" || key.name === "shift-tab") selected = (selected + choices.length - 1) % choices.length;
      else if (key.name === "down" || key.name === "tab") selected = (selected + 1) % choices.length;
      else if (key.name === "text") {
        const typed = key.text.toLowerCase();
        const picked = choices.findIndex((choice, index) => choice.key === typed || String(index + 1) === typed);
        if (picked !== -1) return finish({ value: (choices[picked] as Choice<T>).value });
        return;
      } else return;
      drawChoices();
    });
    if (options.signal?.aborted) onAbort();
  });
}
