import { walkFiles } from "../../../code/walk-files.js";
import type { LineState } from "./line-editor.js";

// `@path` at the prompt: the hint shows the workspace's files and folders that best match the word at the cursor,
// Tab puts in the first (and the next, pressed again). The agent attaches what the prompt mentions when it is sent.

/** Where the completer looks, and what it must leave out. */
export type MentionCompletionOptions = {
  /** The workspace root: paths are offered relative to it. */
  root: string;
  /** Files to leave out, by absolute path: those a `Read(…)` deny rule covers, as Glob leaves them out. */
  isHidden?: ((path: string) => boolean) | undefined;
  /** Most files indexed (default 20,000): a huge repository's first ones, so that a keystroke stays quick. */
  maxFiles?: number | undefined;
  /** Told when an index walk (or a resource listing) has finished, so that the hint can be drawn again with its results. */
  onIndexed?: (() => void) | undefined;
  /** The ready MCP servers' resources, for `@server:uri`: asked for at the first such word after {@link MentionCompleter.refresh}. */
  listResources?: (() => Promise<readonly { server: string; uri: string }[]>) | undefined;
};

/** The `@` word at the cursor: where it starts (the `@`) and ends, and the path typed so far. */
export type MentionWord = { start: number; end: number; query: string };

/** Matches the hint shows. */
const hintedMatches = 5;
/** Matches Tab cycles through. */
const completedMatches = 10;

/**
 * The files and folders of a workspace for `@` completion. The tree is walked only once an `@` word is at the cursor
 * (never at start-up), as the Glob tool walks it (.gitignore respected, version-control folders left out), and
 * again at the first `@` after {@link refresh}; the last index answers meanwhile.
 */
export class MentionCompleter {
  readonly #options: MentionCompletionOptions;
  /** Indexed paths relative to the root, folders ending in `/`. */
  #paths: readonly string[] = [];
  #indexed = false;
  #stale = true;
  #walking: Promise<void> | undefined;
  #ranked = new Map<string, readonly string[]>();
  /** The servers' resources as `server:uri`, once listed; undefined until then. */
  #resources: readonly string[] | undefined;
  #resourcesStale = true;
  /** The last Tab's completion: Tab again, with nothing changed, puts in the next match instead. */
  #last: { text: string; cursor: number; start: number; matches: readonly string[]; index: number } | undefined;

  constructor(options: MentionCompletionOptions) {
    this.#options = options;
  }

  /** A new prompt: the next `@` walks the tree again (files come and go between prompts). */
  refresh(): void {
    this.#stale = true;
    this.#resourcesStale = true;
    this.#last = undefined;
  }

  /** The hint row for an `@` word at the cursor (its best matches), or undefined when there is none. */
  hint(state: LineState): string | undefined {
    const word = findMentionWord(state);
    if (!word) return undefined;
    if (isResourceMention(word.query)) {
      const matches = this.#rankResources(word.query).slice(0, hintedMatches);
      return matches.length === 0 ? undefined : matches.map((resource) => `@${resource}`).join("  ·  ");
    }
    this.#index();
    if (!this.#indexed) return "@ looking for files…";
    const matches = this.#rank(word.query).slice(0, hintedMatches);
    if (matches.length === 0) return `@ no file or folder matches ${word.query}`;
    return matches.map(formatMention).join("  ·  ");
  }

  /** Tab: the `@` word at the cursor completed to its first match, or to the next when Tab was just pressed. */
  complete(state: LineState): LineState | undefined {
    const last = this.#last;
    if (last && last.text === state.text && last.cursor === state.cursor && last.matches.length > 1) {
      const index = (last.index + 1) % last.matches.length;
      return this.#put(state, last.start, state.cursor, last.matches, index);
    }
    const word = findMentionWord(state);
    if (!word) return undefined;
    const resource = isResourceMention(word.query);
    if (!resource) this.#index();
    const matches = (resource ? this.#rankResources(word.query) : this.#rank(word.query)).slice(0, completedMatches);
    if (matches.length === 0) return undefined;
    return this.#put(state, word.start, word.end, matches, 0);
  }

  #put(state: LineState, start: number, end: number, matches: readonly string[], index: number): LineState {
    const path = matches[index] as string;
    const mention = isResourceMention(path) ? `@${path}` : formatMention(path);
    // A folder's mention is left open (inside its quotes) to go on typing into it; a file's is followed by a space.
    const folder = path.endsWith("/");
    const inserted = folder ? mention : `${mention} `;
    const after = state.text.slice(end);
    const text = state.text.slice(0, start) + inserted + (folder || !after.startsWith(" ") ? after : after.slice(1));
    const cursor = start + inserted.length - (folder && mention.endsWith('"') ? 1 : 0);
    this.#last = { text, cursor, start, matches, index };
    return { text, cursor };
  }

  #index(): void {
    if (!this.#stale || this.#walking) return;
    this.#stale = false;
    this.#walking = indexWorkspace(this.#options)
      .then((paths) => {
        this.#paths = paths;
        this.#ranked = new Map();
        this.#indexed = true;
      })
      .catch(() => {
        this.#indexed = true;
      })
      .finally(() => {
        this.#walking = undefined;
        this.#options.onIndexed?.();
      });
  }

  /** The resources that match `server:uri`: the server's name as typed, then the uri fuzzily. */
  #rankResources(query: string): readonly string[] {
    if (this.#resourcesStale && this.#options.listResources) {
      this.#resourcesStale = false;
      void this.#options
        .listResources()
        .then(
          (resources) => resources.map(({ server, uri }) => `${server}:${uri}`),
          () => [],
        )
        .then((resources) => {
          this.#resources = resources;
          this.#options.onIndexed?.();
        });
    }
    const server = query.slice(0, query.indexOf(":") + 1);
    const mine = (this.#resources ?? []).filter((resource) => resource.startsWith(server));
    return rankMentions(
      mine.map((resource) => resource.slice(server.length)),
      query.slice(server.length),
    ).map((uri) => server + uri);
  }

  #rank(query: string): readonly string[] {
    const cached = this.#ranked.get(query);
    if (cached) return cached;
    const ranked = rankMentions(this.#paths, query);
    this.#ranked.set(query, ranked);
    return ranked;
  }
}

/** The `@` word the cursor is in or just after: `@src/a` or `@"my fo` (quoted, for paths with spaces). */
export function findMentionWord({ text, cursor }: LineState): MentionWord | undefined {
  const before = text.slice(0, cursor);
  // The same places an `@` starts a mention where the prompt is read (findFileReferences): after a space or a bracket.
  const match = /(?:^|[\s([{])@(?:"([^"\n]*)|([^\s"'`]*))$/.exec(before);
  if (!match) return undefined;
  const quoted = match[1] !== undefined;
  const start = before.length - (match[1] ?? match[2] ?? "").length - (quoted ? 2 : 1);
  const rest = text.slice(cursor);
  // Punctuation that ends a sentence is not part of the path, as where the prompt is read (`(@src/a.ts)`).
  const length = quoted
    ? (/^[^"\n]*"?/.exec(rest)?.[0].length ?? 0)
    : (/^[^\s"'`]*/.exec(rest)?.[0].replace(/[.,;:!?)\]}>]+$/, "").length ?? 0);
  return { start, end: cursor + length, query: (match[1] ?? match[2] ?? "").replace(/^\.\//, "") };
}

/** `@server:uri` is an MCP resource's mention, not a path (a path with a colon in its first part is rare). */
function isResourceMention(query: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}:/.test(query);
}

/** How a path is written as a mention: in quotes when it holds a space or a quote (as the prompt is read). */
export function formatMention(path: string): string {
  return /[\s"'`]/.test(path) ? `@"${path}"` : `@${path}`;
}

/**
 * The paths that match `query` as a fuzzy subsequence (`s/u/h` matches `src/util/helpers.js`), best first: a name
 * that starts with the query, then one that holds it, then by how well the letters fall on the starts of names and
 * run together; shorter paths first among equals. An empty query gives the top-level entries first.
 */
export function rankMentions(paths: readonly string[], query: string): string[] {
  const wanted = query.toLowerCase();
  const scored: { path: string; score: number }[] = [];
  for (const path of paths) {
    const score = scoreMention(path.toLowerCase(), wanted);
    if (score !== undefined) scored.push({ path, score });
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return scored.map(({ path }) => path);
}

function scoreMention(path: string, query: string): number | undefined {
  const depth = path.replace(/\/$/, "").split("/").length - 1;
  if (query === "") return -depth * 10 - path.length * 0.1;
  let best: number | undefined;
  let tries = 0;
  // Start the match at each place the query's first letter is (a few): `mat` in `src/format/math.js` does best at `math`.
  for (let start = path.indexOf(query[0] as string); start !== -1 && tries < 8; start = path.indexOf(query[0] as string, start + 1)) {
    tries += 1;
    const score = scoreFrom(path, query, start);
    if (score !== undefined && (best === undefined || score > best)) best = score;
  }
  if (best === undefined) return undefined;
  const name = path.replace(/\/$/, "").split("/").at(-1) as string;
  const last = query.replace(/\/$/, "").split("/").at(-1) as string;
  if (last !== "") {
    if (name === last || name.replace(/\.[^.]*$/, "") === last) best += 80;
    else if (name.startsWith(last)) best += 60;
    else if (name.includes(last)) best += 40;
    else if (isSubsequence(last, name)) best += 15;
  }
  return best - path.length * 0.3 - depth;
}

/** A greedy match of `query` in `path` from `start`: points for letters at the start of a name and in a row. */
function scoreFrom(path: string, query: string, start: number): number | undefined {
  let score = 0;
  let previous = -2;
  let at = start;
  for (const character of query) {
    const found = path.indexOf(character, at);
    if (found === -1) return undefined;
    if (found === 0 || "/._- ".includes(path[found - 1] as string)) score += 10;
    if (found === previous + 1) score += 6;
    else if (previous >= 0) score -= Math.min(5, found - previous - 1) * 0.5;
    previous = found;
    at = found + 1;
  }
  return score;
}

function isSubsequence(query: string, text: string): boolean {
  let at = 0;
  for (const character of query) {
    at = text.indexOf(character, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

/** The workspace's files (at most `maxFiles`) and the folders that hold them, relative to the root. */
async function indexWorkspace(options: MentionCompletionOptions): Promise<string[]> {
  const maxFiles = options.maxFiles ?? 20_000;
  const files: string[] = [];
  const folders = new Set<string>();
  const enough = new AbortController();
  await walkFiles({
    start: options.root,
    boundary: options.root,
    signal: enough.signal,
    onFile: (file) => {
      if (files.length >= maxFiles || options.isHidden?.(file.path)) return;
      files.push(file.relative);
      for (let slash = file.relative.indexOf("/"); slash !== -1; slash = file.relative.indexOf("/", slash + 1))
        folders.add(file.relative.slice(0, slash + 1));
      if (files.length >= maxFiles) enough.abort();
    },
  }).catch((error: unknown) => {
    if (!enough.signal.aborted) throw error;
  });
  return [...folders, ...files];
}
