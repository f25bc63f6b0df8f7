/// <reference lib="dom" />
import { fetchTrace, fetchTraceList, type TraceSummary, watchChanges } from "./api.js";
import { h } from "./dom.js";
import { renderTraceList } from "./trace-list.js";
import { TraceView } from "./trace-view.js";

// The page of `minagent trace serve`: a list of traces (#/) and one trace (#/trace/<file name>), kept live
// through the server's change events.

const app = document.getElementById("app") as HTMLElement;
const crumbs = document.getElementById("crumbs") as HTMLElement;
const live = document.getElementById("live") as HTMLElement;

let list: TraceSummary[] = [];
let view: { name: string; trace: TraceView } | undefined;
let fresh = new Set<string>();
let listTimer = 0;

/** The address of a trace, and of one of its spans: `#/trace/<file name>/<span id>` (a file name has no `/`). */
function currentRoute(): { name: string; spanId: string | undefined } | undefined {
  const match = /^#\/trace\/([^/]+)(?:\/([0-9a-fA-F]+))?$/.exec(location.hash);
  if (!match) return undefined;
  try {
    return { name: decodeURIComponent(match[1] as string), spanId: match[2] };
  } catch {
    return undefined;
  }
}

function currentName(): string | undefined {
  return currentRoute()?.name;
}

async function route(): Promise<void> {
  const name = currentName();
  if (name === undefined) return showList();
  return showTrace(name);
}

async function showList(): Promise<void> {
  view = undefined;
  crumbs.replaceChildren();
  document.title = "minagent traces";
  try {
    list = await fetchTraceList();
  } catch (error) {
    return showError(error);
  }
  if (currentName() !== undefined) return;
  app.replaceChildren(renderTraceList(list, fresh, (name) => (location.hash = `#/trace/${encodeURIComponent(name)}`)));
  document.body.dataset.view = "list";
}

async function showTrace(name: string): Promise<void> {
  if (view?.name === name) {
    // Only the span in the address changed (a link, or the person edited it).
    const spanId = currentRoute()?.spanId;
    if (spanId !== undefined) view.trace.selectSpan(spanId);
    return;
  }
  crumbs.replaceChildren(h("a", { href: "#/" }, "all traces"), h("span", null, ` / ${name}`));
  document.title = `${name} · minagent traces`;
  if (view?.name !== name) app.replaceChildren(h("p.empty", null, `Loading ${name}…`));
  document.body.dataset.view = "loading";
  try {
    const loaded = await fetchTrace(name);
    performance.mark("trace-fetched");
    if (currentName() !== name) return;
    // The selected span goes into the address without a navigation (replaceState fires no hashchange).
    const trace = new TraceView(loaded, currentRoute()?.spanId, (spanId) => {
      const hash = `#/trace/${encodeURIComponent(name)}${spanId ? `/${spanId}` : ""}`;
      if (location.hash !== hash) history.replaceState(null, "", hash);
    });
    view = { name, trace };
    app.replaceChildren(trace.element);
    trace.attached();
    document.body.dataset.view = "trace";
    performance.mark("trace-interactive");
  } catch (error) {
    showError(error);
  }
}

function showError(error: unknown): void {
  app.replaceChildren(
    h("div.empty.error-box", null, error instanceof Error ? error.message : String(error)),
    h("p", null, h("a", { href: "#/" }, "Back to the list")),
  );
  document.body.dataset.view = "error";
}

/** A change in the directory: the list is fetched again (once per burst), the open trace if its file changed. */
async function applyChange(changed: string[], removed: string[]): Promise<void> {
  for (const name of changed) fresh.add(name);
  const open = view;
  if (open && changed.includes(open.name)) {
    try {
      const loaded = await fetchTrace(open.name);
      if (view === open) open.trace.update(loaded);
    } catch {
      // A file caught mid-write is read again at its next change.
    }
  }
  if (open && removed.includes(open.name)) app.prepend(h("div.notice", null, `${open.name} was removed from the directory.`));
  if (!open && currentName() === undefined) {
    clearTimeout(listTimer);
    listTimer = window.setTimeout(() => {
      void showList().then(() => {
        fresh = new Set();
      });
    }, 100);
  }
}

window.addEventListener("hashchange", () => void route());
document.addEventListener("keydown", (event) => {
  if (event.key === "/" && view && !(event.target instanceof HTMLInputElement)) {
    event.preventDefault();
    view.trace.focusSearch();
  }
});
watchChanges(
  ({ changed, removed }) => void applyChange(changed, removed),
  (connected) => {
    live.textContent = connected ? "live" : "offline";
    live.classList.toggle("on", connected);
  },
);
void route();
