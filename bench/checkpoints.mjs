// npm run bench:checkpoints (issue 23) — what checkpoints cost, measured side by side in one run with the real
// Checkpoints class of dist/ on real files in a temporary folder (removed at the end):
//   1. a 20,000-file workspace (200 folders × 100 files of 2–5 KB of source-like text, a .gitignore, 100 ignored
//      *.log files and a node_modules/ of 2,000 files, neither of which may be scanned): the first checkpoint ever
//      (a fresh store: open, beginPrompt, the first command's scans — every file read and stored; the baseline),
//      its store bytes beside the workspace's, the files the scan took; then a second session on the manifest
//      flush() saved (reopened: only metadata compared);
//   2. one file changed through Edit (trackFileChange around an atomic write) beside the same write alone;
//   3. a Bash command changing one file (trackCommand around a child process) beside the same command alone;
//   4. a command rewriting 1,000 files (`sed -i` in a child process) beside the same command alone;
//   5. the rewind of that 1,000-file turn;
//   6. storage: 100 turns each writing 10 files of 10 KB of new content through trackFileChange — blobs and log grown
//      beside the bytes written; a session with maxCheckpoints 20 keeps 20, and pruneCheckpointStore frees the rest.
// The arms without checkpoints write the same bytes to a copy outside the workspace, so that the other arm's scans
// do not read them. Every figure is the median of several runs, arms interleaved. The page cache is warm: the
// workspace was just written. A markdown table is printed, then each aim, met or not.
//   MINAGENT_ROOT=<dir>  another build than dist/
//   FIRST_RUNS=<n> (default 3), SESSIONS=<n> (default 5), RUNS=<n> (1,000-file turns, default 3),
//   EDITS=<n> (default 30), COMMANDS=<n> (default 9)
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { availableParallelism, cpus, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { minagentUrl } from "./minagent-root.mjs";

const firstRuns = Number(process.env.FIRST_RUNS ?? 3);
const sessions = Number(process.env.SESSIONS ?? 5);
const runs = Number(process.env.RUNS ?? 3);
const edits = Number(process.env.EDITS ?? 30);
const commands = Number(process.env.COMMANDS ?? 9);
const editAimMs = 50;
const storageAim = 2;

const { Checkpoints, pruneCheckpointStore } = await import(minagentUrl("dist/code/checkpoints/index.js"));

const benchStart = performance.now();
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const timed = async (work) => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};
const ms = (value) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
const count = (value) => value.toLocaleString("en-US");
const progress = (step) => process.stderr.write(`${((performance.now() - benchStart) / 1000).toFixed(1)} s: ${step}\n`);

// ---- source-like text: functions, calls, loops, comments, with varying names and numbers ----
function randomOf(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const words =
  "user order item count total value index result config state cache buffer path name size limit offset token session request response error handler options entry record event queue worker timer".split(
    " ",
  );
const verbs = "get set load save parse format build find update remove check create read write apply merge".split(" ");
const types = ["string", "number", "boolean", "Item[]", "Map<string, number>", "Promise<void>", "Record<string, unknown>", "Options"];
function sourceText(seed, bytes) {
  const random = randomOf(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const capital = (word) => word[0].toUpperCase() + word.slice(1);
  const name = () => pick(words) + (random() < 0.5 ? capital(pick(words)) : "");
  const number = (limit) => Math.floor(random() * limit);
  const statements = [
    () => `  const ${name()} = ${name()}.${pick(verbs)}${capital(pick(words))}(${number(1000)});`,
    () => `  if (${name()} > ${number(100)}) return ${name()};`,
    () => `  // ${pick(verbs)} the ${pick(words)} before the ${pick(words)} (${number(10000)})`,
    () => `  for (const ${pick(words)} of ${name()}) ${name()}.push(${pick(words)}.${pick(words)} * ${(random() * 10).toFixed(2)});`,
    () => `  ${name()} = await ${pick(verbs)}${capital(pick(words))}(${name()}, "${pick(words)}-${number(100000)}");`,
  ];
  let text = `import { ${name()}, ${name()} } from "./${pick(words)}-${pick(words)}.js";\n\n`;
  while (text.length < bytes) {
    text += `export function ${pick(verbs)}${capital(pick(words))}(${name()}: ${pick(types)}, ${name()}: ${pick(types)}): ${pick(types)} {\n`;
    for (let line = 2 + number(8); line > 0; line--) text += `${pick(statements)()}\n`;
    text += "}\n\n";
  }
  return text.slice(0, bytes);
}

// ---- the file system ----
function storeBytes(directory) {
  let bytes = 0;
  let blocks = 0;
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const info = statSync(path);
        bytes += info.size;
        blocks += info.blocks * 512;
      }
    }
  };
  walk(directory);
  return { bytes, blocks };
}
const sizeOf = (directory) => {
  try {
    return storeBytes(directory);
  } catch {
    return { bytes: 0, blocks: 0 };
  }
};
const atomicWrite = async (path, content) => {
  await writeFile(`${path}.tmp`, content);
  await rename(`${path}.tmp`, path);
};
/** Runs a child process to its end; rejects on a non-zero exit. */
const runChild = (file, args) =>
  new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}`))));
  });

const base = realpathSync(mkdtempSync(join(tmpdir(), "minagent-bench-checkpoints-")));
const workspace = join(base, "workspace");
const outside = join(base, "outside"); // where the arms without checkpoints write
const rows = []; // [measure, figure, beside, ratio]
const aims = []; // [aim, figure, met]
let storeNumber = 0;
const newStore = () => join(base, `store-${++storeNumber}`);
const session = (directory, fields = {}) =>
  Checkpoints.open({ directory, sessionId: `bench-${globalThis.crypto.randomUUID()}`, roots: [workspace], ...fields });
const folderName = (index) => `module-${String(index).padStart(3, "0")}`;
const fileName = (index) => `file-${String(index).padStart(3, "0")}.ts`;

try {
  progress("writing the workspace");
  // ---- 1. the workspace, and its first checkpoint ----
  let workspaceBytes = 0;
  mkdirSync(workspace);
  writeFileSync(join(workspace, ".gitignore"), "*.log\nnode_modules/\n");
  workspaceBytes += statSync(join(workspace, ".gitignore")).size;
  for (let folder = 0; folder < 200; folder++) {
    mkdirSync(join(workspace, folderName(folder)));
    for (let file = 0; file < 100; file++) {
      const seed = folder * 100 + file;
      const content = sourceText(seed, 2048 + ((Math.imul(seed, 2654435761) >>> 0) % 3072));
      writeFileSync(join(workspace, folderName(folder), fileName(file)), content);
      workspaceBytes += content.length;
    }
    if (folder < 100) writeFileSync(join(workspace, folderName(folder), "build.log"), sourceText(folder + 1e6, 4000));
  }
  for (let package_ = 0; package_ < 100; package_++) {
    const folder = join(workspace, "node_modules", `package-${package_}`, "lib");
    mkdirSync(folder, { recursive: true });
    for (let file = 0; file < 20; file++) writeFileSync(join(folder, `index-${file}.js`), sourceText(package_ * 20 + file + 2e6, 3000));
  }
  mkdirSync(outside);
  for (let folder = 0; folder < 10; folder++) {
    mkdirSync(join(outside, folderName(folder)));
    for (let file = 0; file < 100; file++)
      writeFileSync(join(outside, folderName(folder), fileName(file)), readFileSync(join(workspace, folderName(folder), fileName(file))));
  }
  const workspaceFiles = 20_001; // the sources and the .gitignore
  await new Promise((resolve) => setTimeout(resolve, 50)); // no file is "racy" (written within the clock tick of its look)

  progress("first checkpoints");
  const firstTimes = [];
  let firstStore;
  let scanned;
  for (let run = 0; run < firstRuns; run++) {
    const directory = newStore();
    let checkpoints;
    firstTimes.push(
      await timed(async () => {
        checkpoints = await session(directory);
        checkpoints.beginPrompt("first prompt", []);
        await checkpoints.trackCommand("Bash", async () => {});
      }),
    );
    await checkpoints.flush();
    firstStore = directory;
    const [manifest] = readdirSync(join(directory, "workspaces"));
    scanned = JSON.parse(readFileSync(join(directory, "workspaces", manifest), "utf8")).files.map(([path]) => path);
    if (run < firstRuns - 1) rmSync(directory, { recursive: true });
  }
  const firstMs = median(firstTimes);
  const leftOut = scanned.filter((path) => path.includes("/node_modules/") || path.endsWith(".log")).length;
  const stored = storeBytes(firstStore);
  const blobs = storeBytes(join(firstStore, "blobs"));
  rows.push([`first checkpoint ever, ${count(scanned.length)} files scanned (baseline)`, ms(firstMs), "", "1×"]);
  rows.push([
    "  its store (blobs, manifest, log) / the workspace's bytes",
    megabytes(stored.bytes),
    megabytes(workspaceBytes),
    `${(stored.bytes / workspaceBytes).toFixed(2)}×`,
  ]);
  rows.push([
    "  on disk (blocks of the store's files) / the workspace's bytes",
    megabytes(stored.blocks),
    megabytes(workspaceBytes),
    `${(stored.blocks / workspaceBytes).toFixed(2)}×`,
  ]);
  rows.push([
    "  of which blobs (gzip level 1)",
    megabytes(blobs.bytes),
    megabytes(workspaceBytes),
    `${(blobs.bytes / workspaceBytes).toFixed(2)}×`,
  ]);
  aims.push([
    `the scan takes the ${count(workspaceFiles)} files, not node_modules/ (2,000) nor the 100 ignored *.log`,
    `${count(scanned.length)} files, ${leftOut} of them ignored ones`,
    scanned.length === workspaceFiles && leftOut === 0,
  ]);

  progress("second sessions");
  const secondTimes = [];
  let checkpoints;
  for (let run = 0; run < sessions; run++)
    secondTimes.push(
      await timed(async () => {
        checkpoints = await session(firstStore);
        checkpoints.beginPrompt("second session", []);
        await checkpoints.trackCommand("Bash", async () => {});
      }),
    );
  rows.push([
    "second session (manifest reopened), its first command's scans",
    ms(median(secondTimes)),
    ms(firstMs),
    `${(median(secondTimes) / firstMs).toFixed(3)}×`,
  ]);

  progress("edits");
  // ---- 2. one file through Edit ----
  checkpoints.beginPrompt("edit files", []);
  const withEdit = [];
  const withoutEdit = [];
  for (let run = 0; run < edits; run++) {
    const relative = join(folderName(run % 10), fileName(run));
    const content = sourceText(run + 3e6, 3500);
    const tracked = async () => {
      const path = join(workspace, relative);
      withEdit.push(await timed(() => checkpoints.trackFileChange(path, "Edit", () => atomicWrite(path, content))));
    };
    const alone = async () => withoutEdit.push(await timed(() => atomicWrite(join(outside, relative), content)));
    if (run % 2 === 0) await tracked().then(alone);
    else await alone().then(tracked);
  }
  const editAdded = median(withEdit) - median(withoutEdit);
  rows.push([
    "Edit of one file: trackFileChange around an atomic write",
    ms(median(withEdit)),
    ms(median(withoutEdit)),
    `+${ms(editAdded)}`,
  ]);
  aims.push([`Edit adds ≤ ${editAimMs} ms`, `+${ms(editAdded)}`, editAdded <= editAimMs]);

  progress("one-file commands");
  // ---- 3. a command changing one file ----
  checkpoints.beginPrompt("one-file commands", []);
  const withCommand = [];
  const withoutCommand = [];
  for (let run = 0; run < commands; run++) {
    const relative = join(folderName(20 + run), fileName(0));
    const script = 'printf "%s\\n" "$2" >> "$1"';
    const line = `// changed by command ${run}`;
    const tracked = async () =>
      withCommand.push(
        await timed(() => checkpoints.trackCommand("Bash", () => runChild("sh", ["-c", script, "sh", join(workspace, relative), line]))),
      );
    const alone = async () =>
      withoutCommand.push(await timed(() => runChild("sh", ["-c", script, "sh", join(outside, fileName(0)), line])));
    if (run % 2 === 0) await tracked().then(alone);
    else await alone().then(tracked);
  }
  const commandAdded = median(withCommand) - median(withoutCommand);
  rows.push([
    "Bash changing one file: trackCommand around `sh -c 'printf >>'`",
    ms(median(withCommand)),
    ms(median(withoutCommand)),
    `+${ms(commandAdded)}`,
  ]);

  progress("1,000-file turns and rewinds");
  // ---- 4. and 5. a command rewriting 1,000 files, and its rewind ----
  const thousand = (root) =>
    Array.from({ length: 1000 }, (_, index) => join(root, folderName(100 + Math.floor(index / 100)), fileName(index % 100)));
  const workspaceThousand = thousand(workspace);
  for (const [index, path] of thousand(outside).entries()) {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, readFileSync(workspaceThousand[index]));
  }
  const before = workspaceThousand.map((path) => readFileSync(path, "utf8"));
  const withBulk = [];
  const withoutBulk = [];
  const rewinds = [];
  let restored = 0;
  for (let run = 0; run < runs; run++) {
    const sed = (files) => runChild("sed", ["-i", `1i // rewritten by turn ${run}`, ...files]);
    const tracked = async () => {
      const turn = checkpoints.beginPrompt(`rewrite 1,000 files (${run})`, []);
      withBulk.push(await timed(() => checkpoints.trackCommand("Bash", () => sed(workspaceThousand))));
      let outcome;
      rewinds.push(await timed(async () => (outcome = await checkpoints.rewind(turn.id))));
      restored = outcome.restored.length;
      const differing = workspaceThousand.filter((path, index) => readFileSync(path, "utf8") !== before[index]).length;
      if (differing > 0 || outcome.conflicts.length > 0)
        throw new Error(`the rewind left ${differing} files unrestored, ${outcome.conflicts.length} conflicts`);
    };
    const alone = async () => withoutBulk.push(await timed(() => sed(thousand(outside))));
    if (run % 2 === 0) await tracked().then(alone);
    else await alone().then(tracked);
  }
  const bulkAdded = median(withBulk) - median(withoutBulk);
  rows.push([
    "Bash rewriting 1,000 files: trackCommand around `sed -i`",
    ms(median(withBulk)),
    ms(median(withoutBulk)),
    `+${ms(bulkAdded)}`,
  ]);
  rows.push([`rewind of that turn (${count(restored)} files restored, checked)`, ms(median(rewinds)), "", ""]);
  await checkpoints.flush();

  progress("storage");
  // ---- 6. storage: 100 turns of 10 files of 10 KB ----
  const turns = 100;
  const filesPerTurn = 10;
  const fileBytes = 10 * 1024;
  // A workspace of its own, so that its baseline is those 10 files.
  const storageRoot = join(base, "storage-workspace");
  const storageFiles = Array.from({ length: filesPerTurn }, (_, index) => join(storageRoot, `service-${index}.ts`));
  mkdirSync(storageRoot);
  const writeTurns = async (store, fields, seedBase) => {
    for (const [index, path] of storageFiles.entries()) writeFileSync(path, sourceText(seedBase + index, fileBytes));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const turnCheckpoints = await session(store, fields);
    await turnCheckpoints.trackCommand("Bash", async () => {}); // the baseline, before the first prompt: not counted
    await turnCheckpoints.flush();
    const baseline = sizeOf(join(store, "blobs")).bytes + sizeOf(join(store, "sessions")).bytes;
    for (let turn = 0; turn < turns; turn++) {
      turnCheckpoints.beginPrompt(`turn ${turn}`, []);
      for (const [index, path] of storageFiles.entries()) {
        const content = sourceText(seedBase + (turn + 1) * 1000 + index, fileBytes);
        await turnCheckpoints.trackFileChange(path, "Write", () => atomicWrite(path, content));
      }
    }
    await turnCheckpoints.flush();
    return { checkpoints: turnCheckpoints, baseline };
  };
  const storageStore = newStore();
  const storage = await writeTurns(storageStore, { roots: [storageRoot] }, 4e6);
  const grownBlobs = sizeOf(join(storageStore, "blobs")).bytes;
  const grownLog = sizeOf(join(storageStore, "sessions")).bytes;
  const grown = grownBlobs + grownLog - storage.baseline;
  const changed = turns * filesPerTurn * fileBytes;
  rows.push([
    `storage: ${turns} turns × ${filesPerTurn} files of 10 KB written, store grown (blobs + log)`,
    megabytes(grown),
    megabytes(changed),
    `${(grown / changed).toFixed(2)}×`,
  ]);
  rows.push(["  of which the log", megabytes(grownLog), "", ""]);
  aims.push([`storage within ${storageAim}× the bytes changed`, `${(grown / changed).toFixed(2)}×`, grown / changed <= storageAim]);

  const prunedStore = newStore();
  const notes = [];
  const pruned = await writeTurns(prunedStore, { roots: [storageRoot], maxCheckpoints: 20, onNote: (note) => notes.push(note) }, 5e6);
  const [logName] = readdirSync(join(prunedStore, "sessions"));
  const logged = readFileSync(join(prunedStore, "sessions", logName), "utf8")
    .split("\n")
    .filter((line) => line.startsWith('{"type":"checkpoint"')).length;
  const blobsBefore = sizeOf(join(prunedStore, "blobs")).bytes;
  const prune = await pruneCheckpointStore(prunedStore, { sessionExists: () => true, force: true });
  const blobsAfter = sizeOf(join(prunedStore, "blobs")).bytes;
  rows.push([
    `maxCheckpoints 20: checkpoints in the log after ${turns} turns (${notes.length} notes)`,
    `${logged} (${pruned.checkpoints.checkpoints.length} in memory)`,
    `${turns}`,
    "",
  ]);
  rows.push([
    "  blobs before → after pruneCheckpointStore (force)",
    `${megabytes(blobsBefore)} → ${megabytes(blobsAfter)}`,
    `freed ${megabytes(prune.freedBytes)}`,
    `${(blobsAfter / blobsBefore).toFixed(2)}×`,
  ]);
  aims.push(["maxCheckpoints 20 keeps 20 in the log", `${logged}`, logged === 20 && pruned.checkpoints.checkpoints.length === 20]);
  aims.push([
    "pruneCheckpointStore frees the pruned checkpoints' blobs",
    `${megabytes(blobsBefore)} → ${megabytes(blobsAfter)}`,
    blobsAfter < blobsBefore,
  ]);
} finally {
  rmSync(base, { recursive: true, force: true });
}

// ---- the report ----
const totalSeconds = (performance.now() - benchStart) / 1000;
aims.push(["the bench runs in under ~2 minutes", `${totalSeconds.toFixed(0)} s`, totalSeconds <= 120]);
const cpu = cpus()[0]?.model ?? "unknown CPU";
console.log(
  `Machine: ${cpu}, ${availableParallelism()} CPUs, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}, Node ${process.version}; ` +
    `temporary folder ${tmpdir()}; medians of ${firstRuns} first checkpoints, ${sessions} sessions, ${runs} 1,000-file turns, ${edits} edits, ${commands} commands.`,
);
console.log("");
console.log("| measure | with checkpoints | beside | ratio / added |");
console.log("|---|---:|---:|---:|");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
console.log("");
console.log("| aim | figure | met |");
console.log("|---|---:|---|");
for (const [aim, figure, met] of aims) console.log(`| ${aim} | ${figure} | ${met ? "yes" : "NO"} |`);
