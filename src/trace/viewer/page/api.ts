/// <reference lib="dom" />
import type { Trace } from "../../trace.js";
import type { TraceSummary } from "../trace-summary.js";

export type { TraceSummary };

/** What `GET /api/traces/<name>` answers. */
export type LoadedTrace = { summary: TraceSummary; trace: Trace; costs: Record<string, number> };

/** A change in the served directory (Server-Sent Events from `/api/events`). */
export type DirectoryChange = { changed: string[]; removed: string[] };

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { cache: "no-store" });
  const body = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `${path}: HTTP ${response.status}`);
  return body;
}

export function fetchTraceList(): Promise<TraceSummary[]> {
  return getJson("api/traces");
}

export function fetchTrace(name: string): Promise<LoadedTrace> {
  return getJson(`api/traces/${encodeURIComponent(name)}`);
}

/**
 * Listens for changes. EventSource reconnects by itself (the server asks for a retry after 1 s);
 * `onStatus` says whether the stream is open, for the page's live indicator.
 */
export function watchChanges(onChange: (change: DirectoryChange) => void, onStatus: (live: boolean) => void): () => void {
  const source = new EventSource("api/events");
  source.addEventListener("open", () => onStatus(true));
  source.addEventListener("error", () => onStatus(false));
  source.addEventListener("change", (event) => onChange(JSON.parse((event as MessageEvent<string>).data) as DirectoryChange));
  return () => source.close();
}
