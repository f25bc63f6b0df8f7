import { createHash } from "node:crypto";
import { appendFileSync, renameSync, writeFileSync } from "node:fs";
import { chmod, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Message } from "../../engine.js";
import { UsageError } from "../../errors.js";
import { BlobStore } from "./blob-store.js";
import { appendLogLines, type CheckpointLogLine, linesOf, type ReadLog, readLog, rewriteLog } from "./checkpoint-log.js";
import type {
  Checkpoint,
  ConversationMark,
  FileChange,
  FileState,
  RestoredFile,
  RewindConflict,
  RewindConflictPolicy,
  RewindPlan,
} from "./checkpoint-types.js";
import { planRewind } from "./plan-rewind.js";
import { defaultCheckpointExclusions, scanWorkspace } from "./scan-workspace.js";
import { WorkspaceManifest } from "./workspace-manifest.js";

/** Where checkpoints are kept and what they cover (see {@link Checkpoints.open}). */
export type CheckpointsOptions = {
  /** The checkpoint store: `<data directory>/checkpoints` (blobs, one log per session, one manifest per workspace). */
  directory: string;
  /** The session the checkpoints belong to. */
  sessionId: string;
  /** A fork's parent: a fork's log starts as a copy of its parent's (made once, when the fork's is opened first). */
  forkedFrom?: string | undefined;
  /** Absolute folders covered: the workspace root, then the added directories. */
  roots: readonly string[];
  /** gitignore-style patterns left out of command scans, on top of the defaults (`node_modules/`, caches). */
  exclude?: readonly string[] | undefined;
  /** `false`: the project's .gitignore does not leave files out (default true). */
  gitignore?: boolean | undefined;
  /** Files larger than this are not kept: their changes are listed, not restorable (default 5 MiB). */
  maxFileBytes?: number | undefined;
  /** A workspace with more files than this gets no command scans: Bash changes go unrecorded, and a note says so (default 100,000). */
  maxFiles?: number | undefined;
  /** Checkpoints a session keeps; the oldest are pruned beyond it, and a note says so (default 100). */
  maxCheckpoints?: number | undefined;
  /** Hides secrets in the prompt text a checkpoint keeps (the session's scrubber). */
  scrub?: ((text: string) => string) | undefined;
  /** Told what a person should know: checkpoints pruned, a workspace too large to scan. */
  onNote?: ((note: string) => void) | undefined;
};

/** What a rewind did: its own checkpoint (rewind to before it to undo), the files restored, the conflicts left. */
export type RewindOutcome = {
  /** The rewind's checkpoint: `rewind(outcome.checkpoint.id)` undoes it. */
  checkpoint: Checkpoint;
  /** The checkpoint gone back to. */
  target: Checkpoint;
  restored: RestoredFile[];
  /** Files left as they were (`keep`), or not restorable. */
  conflicts: RewindConflict[];
};

/** A rewind that would overwrite files changed after the agent's last change: nothing was changed. */
export class RewindConflictError extends UsageError {
  readonly conflicts: readonly RewindConflict[];
  constructor(conflicts: readonly RewindConflict[]) {
    super(
      `The rewind would overwrite ${conflicts.length === 1 ? "a file" : `${conflicts.length} files`} changed after the agent's last change:\n` +
        `${conflicts.map((conflict) => `  ${conflict.description}`).join("\n")}\n` +
        'Nothing was changed. Keep those files as they are (onConflict "keep", --rewind-conflicts keep), overwrite them ("overwrite"), or rewind the conversation only.',
    );
    this.conflicts = conflicts;
  }
}

/**
 * A session's checkpoints: before each prompt, the workspace's files as they were, so that anything the agent did
 * — with Write and Edit, or a shell command and whatever it started — can be undone, and the conversation with it.
 *
 * File tools report the file they change ({@link trackFileChange}): that file alone is looked at, before and after.
 * A command ({@link trackCommand}) may change any file: the workspace is scanned before and after it (metadata
 * only, except for files that changed), against a manifest of every tracked file whose contents are all kept, so
 * the state before the command can be restored whatever it did. Contents are kept once by their hash, compressed;
 * nothing is written to the project or its git repository. Everything is serialized: the scans, the file tools'
 * looks, rewinds.
 */
export class Checkpoints {
  readonly #options: CheckpointsOptions;
  readonly #blobs: BlobStore;
  readonly #manifest: WorkspaceManifest;
  readonly #manifestFile: string;
  #logFile: string;
  #sessionId: string;
  #forkedFrom: string | undefined;
  #checkpoints: Checkpoint[];
  #prunedThrough: number;
  #queue: Promise<unknown> = Promise.resolve();
  /** Commands running now: a change a scan meets meanwhile may be theirs, not someone else's. */
  #running = 0;
  #tooManyFiles = false;
  #warmedUp = false;
  #prunedNoted = false;
  /** The paths the session's checkpoints hold changes of (made on first need). */
  #touchedPaths: Set<string> | undefined;

  private constructor(options: CheckpointsOptions, manifest: WorkspaceManifest, log: { checkpoints: Checkpoint[]; prunedThrough: number }) {
    this.#options = options;
    this.#blobs = new BlobStore(join(options.directory, "blobs"));
    this.#manifest = manifest;
    this.#manifestFile = manifestFile(options.directory, options.roots);
    this.#logFile = logFile(options.directory, options.sessionId);
    this.#sessionId = options.sessionId;
    this.#forkedFrom = options.forkedFrom;
    this.#checkpoints = log.checkpoints;
    this.#prunedThrough = log.prunedThrough;
    this.#adoptLog();
  }

  /**
   * The log is written as changes happen, the manifest only by flush(): after a crash (or another session's flush)
   * the log knows better what the session's files were last.
   */
  #adoptLog(): void {
    const last = new Map<string, FileState | null>();
    for (const checkpoint of this.#checkpoints) for (const change of checkpoint.changes) last.set(change.path, change.after);
    for (const [path, state] of last) this.#manifest.adopt(path, state);
  }

  /** Opens a session's checkpoints: its log (a fork's is first copied from its parent's) and the workspace's manifest. */
  static async open(options: CheckpointsOptions): Promise<Checkpoints> {
    const blobs = new BlobStore(join(options.directory, "blobs"));
    const manifest = await WorkspaceManifest.load(manifestFile(options.directory, options.roots), {
      blobs,
      maxFileBytes: options.maxFileBytes ?? 5 * 1024 * 1024,
    });
    return new Checkpoints(options, manifest, await openLog(options.directory, options.sessionId, options.forkedFrom));
  }

  /** The session whose checkpoints these are. */
  get sessionId(): string {
    return this.#sessionId;
  }

  /**
   * Goes on with another session's checkpoints (the interactive session's /clear and /resume): its log is read (a
   * fork's first copied from its parent's); the workspace's manifest stays.
   */
  async switchSession(sessionId: string, forkedFrom?: string): Promise<void> {
    await this.#serialized(async () => {
      const log = await openLog(this.#options.directory, sessionId, forkedFrom);
      this.#sessionId = sessionId;
      this.#forkedFrom = forkedFrom;
      this.#logFile = logFile(this.#options.directory, sessionId);
      this.#checkpoints = log.checkpoints;
      this.#prunedThrough = log.prunedThrough;
      this.#touchedPaths = undefined;
      this.#prunedNoted = false;
      this.#adoptLog();
    });
  }

  /** The session's checkpoints, oldest first (pruned ones gone). */
  get checkpoints(): readonly Checkpoint[] {
    return this.#checkpoints;
  }

  /** The checkpoint a number (as `/rewind` shows it) or an id names; a UsageError saying what there is otherwise. */
  find(target: string | number): Checkpoint {
    const text = String(target).trim().replace(/^#/, "");
    const found = /^\d+$/.test(text)
      ? this.#checkpoints.find((checkpoint) => checkpoint.number === Number(text))
      : this.#checkpoints.find((checkpoint) => checkpoint.id === text);
    if (found) return found;
    const range = this.#checkpoints.length === 0 ? "this session has none yet" : `this session has ${describeRange(this.#checkpoints)}`;
    const pruned =
      /^\d+$/.test(text) && Number(text) <= this.#prunedThrough ? ` (checkpoints up to ${this.#prunedThrough} were pruned)` : "";
    throw new UsageError(`No checkpoint ${String(target)}${pruned}: ${range}.`);
  }

  /**
   * Marks the point before a prompt: the conversation so far, and (as changes come) the files as they were. Every
   * change until the next checkpoint is this one's. Written to the log now.
   */
  beginPrompt(prompt: string, conversation: readonly Message[]): Checkpoint {
    const firstLine = (prompt.split("\n").find((line) => line.trim() !== "") ?? "").trim().slice(0, 200);
    const checkpoint = this.#add({
      kind: "prompt",
      prompt: this.#options.scrub ? this.#options.scrub(firstLine) : firstLine,
      conversation: markOf(conversation),
    });
    this.#pruneOld();
    // The first scan of a process may read every file (a workspace never seen, or changed since): it starts now, in
    // the background, while the model thinks, so that the first command seldom waits for it.
    if (!this.#warmedUp) {
      this.#warmedUp = true;
      void this.#serialized(() => this.#scan("outside")).catch(() => {});
    }
    return checkpoint;
  }

  /**
   * Runs a file tool's change of `path` (absolute): the file is looked at before (a change someone else made since
   * is recorded as theirs) and after (the change is the tool's, `by`), whether `change` succeeds or throws.
   */
  async trackFileChange<T>(path: string, by: string, change: () => Promise<T>): Promise<T> {
    await this.#serialized(async () => this.#record(await this.#manifest.observe(path), "outside"));
    try {
      return await change();
    } finally {
      await this.#serialized(async () => this.#record(await this.#manifest.observe(path), by));
    }
  }

  /**
   * Runs a command that may change any file (Bash, a tool whose effects are unknown): the workspace is scanned
   * before (changes met are someone else's, unless another command runs) and after (what changed is `by`'s).
   */
  async trackCommand<T>(by: string, run: () => Promise<T>): Promise<T> {
    await this.#serialized(() => this.#scan(this.#running > 0 ? by : "outside"));
    this.#running++;
    try {
      return await run();
    } finally {
      this.#running--;
      await this.#serialized(() => this.#scan(by));
    }
  }

  /**
   * What rewinding the code to before `target` would restore, and what stands in the way. Changes no file; the files
   * it looks at that someone else changed are recorded as such (the rewind after it must know).
   */
  async planRewind(target: string | number): Promise<RewindPlan> {
    return this.#serialized(() => this.#plan(this.find(target)));
  }

  /**
   * Goes back to before `target`: the files the agent changed since are restored (`code`, default true), and a
   * rewind checkpoint records it (`conversation`: the conversation now, so that undoing the rewind brings it back;
   * the caller replaces its conversation with the target's). Conflicting files (changed after the agent's last
   * change) stop the rewind before anything changes (`refuse`, default: a {@link RewindConflictError}), are left
   * alone (`keep`) or restored anyway (`overwrite`).
   */
  async rewind(
    target: string | number,
    options: {
      code?: boolean | undefined;
      conversation?: readonly Message[] | undefined;
      onConflict?: RewindConflictPolicy | undefined;
    } = {},
  ): Promise<RewindOutcome> {
    return this.#serialized(async () => {
      const to = this.find(target);
      const code = options.code !== false;
      const plan = code ? await this.#plan(to) : { checkpoint: to, files: [], conflicts: [] };
      const policy = options.onConflict ?? "refuse";
      const changed = plan.conflicts.filter((conflict) => conflict.reason === "changed");
      if (policy === "refuse" && changed.length > 0) throw new RewindConflictError(changed);
      const files = policy === "overwrite" ? [...plan.files, ...(await this.#overwrites(to, changed))] : plan.files;
      const conflicts = policy === "overwrite" ? plan.conflicts.filter((conflict) => conflict.reason !== "changed") : plan.conflicts;
      const checkpoint = this.#add({
        kind: "rewind",
        rewound: { to: to.id, code, conversation: options.conversation !== undefined },
        conversation: markOf(options.conversation ?? []),
      });
      // Recorded first, applied after: a rewind cut short is undone like a whole one (a file not yet restored is
      // already what the undo wants).
      const changes = files.map((file): FileChange => ({ path: file.path, before: file.from, after: file.to, by: "rewind" }));
      this.#appendChanges(checkpoint, changes);
      for (const file of files) await this.#restore(file);
      return { checkpoint, target: to, restored: files, conflicts };
    });
  }

  /** The contents a state refers to; rejects for a state not stored. */
  async content(state: FileState): Promise<Buffer> {
    if (state.hash === undefined || !state.stored)
      throw new UsageError(`A file of ${state.size} bytes was over the size cap: its content was not kept.`);
    return this.#blobs.get(state.hash);
  }

  /** A note when commands are not covered (the workspace is over `maxFiles`), else undefined. */
  get coverageNote(): string | undefined {
    return this.#tooManyFiles
      ? `Shell commands' changes are not checkpointed: the workspace has more than ${this.#maxFiles} files (checkpoints.maxFiles). Write and Edit are.`
      : undefined;
  }

  /** Saves the workspace's manifest, so that the next session's first scan reads only what changed. */
  async flush(): Promise<void> {
    await this.#serialized(() => this.#manifest.save(this.#manifestFile));
  }

  get #maxFiles(): number {
    return this.#options.maxFiles ?? 100_000;
  }

  async #scan(by: string): Promise<void> {
    if (this.#tooManyFiles) return;
    const result = await scanWorkspace(this.#manifest, {
      roots: this.#options.roots,
      exclude: [...defaultCheckpointExclusions, ...(this.#options.exclude ?? [])],
      gitignore: this.#options.gitignore !== false,
      maxFiles: this.#maxFiles,
    });
    if (result.tooManyFiles) {
      this.#tooManyFiles = true;
      this.#options.onNote?.(this.coverageNote as string);
      return;
    }
    for (const change of result.changes) this.#record(change, by);
  }

  #touched(path: string): boolean {
    if (this.#touchedPaths === undefined)
      this.#touchedPaths = new Set(this.#checkpoints.flatMap((checkpoint) => checkpoint.changes.map((change) => change.path)));
    return this.#touchedPaths.has(path);
  }

  #record(change: { path: string; before: FileState | null; after: FileState | null } | undefined, by: string): void {
    if (!change) return;
    const current = this.#checkpoints.at(-1);
    // Before the first prompt nothing is the session's: the manifest alone remembers. Someone else's change
    // matters only to a file the session changed (a rewind must not overwrite it); others are the new baseline.
    if (!current || (by === "outside" && !this.#touched(change.path))) return;
    this.#appendChanges(current, [{ ...change, by }]);
  }

  #appendChanges(checkpoint: Checkpoint, changes: readonly FileChange[]): void {
    if (changes.length === 0) return;
    checkpoint.changes.push(...changes);
    for (const change of changes) this.#touchedPaths?.add(change.path);
    appendLogLines(
      this.#logFile,
      changes.map((change) => ({ type: "change", checkpoint: checkpoint.id, ...change })),
    );
  }

  async #plan(to: Checkpoint): Promise<RewindPlan> {
    const index = this.#checkpoints.indexOf(to);
    const later = this.#checkpoints.slice(index);
    // The files the range touches are looked at now: a change by hand since the last look becomes an outside change.
    for (const path of new Set(later.flatMap((checkpoint) => checkpoint.changes.map((change) => change.path))))
      this.#record(await this.#manifest.observe(path), "outside");
    return planRewind(to, this.#checkpoints.slice(index), (path) => this.#manifest.known(path));
  }

  /** The files of changed-after conflicts, to be restored anyway. */
  async #overwrites(to: Checkpoint, conflicts: readonly RewindConflict[]): Promise<RestoredFile[]> {
    const plan = planRewind(to, this.#checkpoints.slice(this.#checkpoints.indexOf(to)), (path) => this.#manifest.known(path), {
      overwrite: true,
    });
    const paths = new Set(conflicts.map((conflict) => conflict.path));
    return plan.files.filter((file) => paths.has(file.path));
  }

  async #restore(file: RestoredFile): Promise<void> {
    if (file.to === null) await rm(file.path, { force: true });
    else {
      const content = await this.content(file.to);
      await mkdir(dirname(file.path), { recursive: true });
      const temporary = `${file.path}.minagent-rewind-${process.pid}.tmp`;
      await writeFile(temporary, content, { mode: file.to.mode });
      await chmod(temporary, file.to.mode);
      await rename(temporary, file.path);
    }
    this.#manifest.forget(file.path);
    await this.#manifest.observe(file.path);
  }

  #add(fields: Omit<Checkpoint, "id" | "number" | "at" | "changes">): Checkpoint {
    const number = (this.#checkpoints.at(-1)?.number ?? this.#prunedThrough) + 1;
    const checkpoint: Checkpoint = {
      id: `cp_${globalThis.crypto.randomUUID()}`,
      number,
      at: new Date().toISOString(),
      ...fields,
      changes: [],
    };
    const lines: CheckpointLogLine[] = [];
    if (this.#checkpoints.length === 0 && this.#prunedThrough === 0)
      lines.push({ type: "session", version: 1, sessionId: this.#sessionId, forkedFrom: this.#forkedFrom });
    const { changes: _changes, ...line } = checkpoint;
    lines.push({ type: "checkpoint", ...line });
    appendLogLines(this.#logFile, lines);
    this.#checkpoints.push(checkpoint);
    return checkpoint;
  }

  /** Beyond `maxCheckpoints`, the oldest go: the log is rewritten without them; their contents are freed by the next sweep. */
  #pruneOld(): void {
    const max = this.#options.maxCheckpoints ?? 100;
    const excess = this.#checkpoints.length - max;
    if (excess <= 0) return;
    const dropped = this.#checkpoints.splice(0, excess);
    this.#prunedThrough = (dropped.at(-1) as Checkpoint).number;
    const lines = linesOf({ sessionId: this.#sessionId, forkedFrom: this.#forkedFrom }, this.#checkpoints, this.#prunedThrough);
    // Written now, synchronously as every append is: a change line appended meanwhile (a scan in flight) would be
    // lost by a rewrite made later from these lines.
    const temporary = `${this.#logFile}.${process.pid}.tmp`;
    writeFileSync(temporary, lines.map((line) => `${JSON.stringify(line)}\n`).join(""), { mode: 0o600 });
    renameSync(temporary, this.#logFile);
    void this.#serialized(() => markSweepDue(this.#options.directory));
    // Said once a session: after that, every prompt prunes one, as the note said it would.
    if (this.#prunedNoted) return;
    this.#prunedNoted = true;
    this.#options.onNote?.(
      `Checkpoint${dropped.length === 1 ? "" : "s"} ${describeRange(dropped)} pruned: a session keeps its last ${max} (checkpoints.maxCheckpoints); older ones go as new ones come.`,
    );
  }

  #serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(work, work);
    this.#queue = result.catch(() => {});
    return result;
  }
}

/** A session's log as read; a fork's first log is its parent's, copied (then each goes its own way). */
async function openLog(directory: string, sessionId: string, forkedFrom: string | undefined): Promise<ReadLog> {
  const file = logFile(directory, sessionId);
  const log = await readLog(file);
  // A torn last line (a kill mid-write) is ended, so that the next line appended starts a line of its own.
  if (log.torn) appendFileSync(file, "\n");
  if (log.sessionId !== undefined || forkedFrom === undefined) return log;
  const parent = await readLog(logFile(directory, forkedFrom));
  if (parent.checkpoints.length === 0) return log;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await rewriteLog(file, linesOf({ sessionId, forkedFrom }, parent.checkpoints, parent.prunedThrough));
  return readLog(file);
}

/** The manifest of a set of roots: one per workspace, shared by its sessions. */
export function manifestFile(directory: string, roots: readonly string[]): string {
  return join(directory, "workspaces", `${createHash("sha256").update(roots.join("\0")).digest("hex").slice(0, 32)}.json`);
}

/** A session's checkpoint log. */
export function logFile(directory: string, sessionId: string): string {
  return join(directory, "sessions", `${sessionId}.jsonl`);
}

/** Marks the store for a sweep: something it kept may no longer be needed. */
export async function markSweepDue(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  await writeFile(join(directory, "sweep-due"), "");
}

function markOf(conversation: readonly Message[]): ConversationMark {
  const last = conversation.at(-1);
  return { length: conversation.length, fingerprint: last === undefined ? undefined : fingerprintOf(last) };
}

/** What identifies a message in a conversation: its role, text, call id and calls' ids, hashed. */
export function fingerprintOf(message: Message): string {
  const calls = (message.toolCalls ?? []).map((call) => call.id).join(",");
  return createHash("sha256")
    .update(`${message.role}\0${message.content}\0${message.toolCallId ?? ""}\0${calls}`)
    .digest("hex")
    .slice(0, 16);
}

function describeRange(checkpoints: readonly Checkpoint[]): string {
  const first = checkpoints[0]?.number;
  const last = checkpoints.at(-1)?.number;
  return first === last ? `${first}` : `${first}–${last}`;
}
