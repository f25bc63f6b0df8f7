/// <reference lib="dom" />

type Child = Node | string | number | false | null | undefined;

/**
 * Creates an element: `h("td.cost", { title: "…" }, "$0.01")`. Class names follow a dot in the tag; text
 * children become text nodes (never HTML), so nothing from a trace is ever parsed as markup.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K | `${K}.${string}`,
  attributes: Record<string, string | number | boolean | undefined> | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const [name, ...classes] = tag.split(".");
  const element = document.createElement(name as K);
  if (classes.length > 0) element.className = classes.join(" ");
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === false) continue;
    element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children (text as text nodes), skipping empty ones. */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Text with every occurrence of `query` (case-insensitive) wrapped in <mark>, as nodes. */
export function highlighted(value: string, query: string): Node {
  // A trace file is untrusted: what should be text may be a number.
  const text = typeof value === "string" ? value : String(value ?? "");
  const fragment = document.createDocumentFragment();
  if (!query) {
    fragment.append(text);
    return fragment;
  }
  const lower = text.toLowerCase();
  const needle = query.toLowerCase();
  let from = 0;
  for (let index = lower.indexOf(needle); index !== -1; index = lower.indexOf(needle, from)) {
    fragment.append(text.slice(from, index), h("mark", null, text.slice(index, index + needle.length)));
    from = index + needle.length;
  }
  fragment.append(text.slice(from));
  return fragment;
}
