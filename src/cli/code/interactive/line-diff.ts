/** One line of a diff: kept (" "), removed ("-") or added ("+"), with its numbers in the old and the new text. */
export type DiffLine = { kind: " " | "-" | "+"; text: string; oldNumber: number | undefined; newNumber: number | undefined };

/** A run of changes with the kept lines around it. */
export type DiffHunk = DiffLine[];

/** Above this many cells (lines × lines of the part that differs) the middle is shown as removed, then added. */
const maxTableCells = 4_000_000;

/**
 * A line diff of two texts: the common start and end are set aside, and what differs between them is aligned on a
 * longest common subsequence (a table, for the few hundred lines an edit changes; beyond a size, everything in the
 * middle counts as replaced).
 */
export function diffLines(oldText: string, newText: string): DiffLine[] {
  const before = splitLines(oldText);
  const after = splitLines(newText);
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let oldEnd = before.length;
  let newEnd = after.length;
  while (oldEnd > start && newEnd > start && before[oldEnd - 1] === after[newEnd - 1]) {
    oldEnd--;
    newEnd--;
  }
  const lines: DiffLine[] = [];
  const keep = (oldIndex: number, newIndex: number) =>
    lines.push({ kind: " ", text: before[oldIndex] as string, oldNumber: oldIndex + 1, newNumber: newIndex + 1 });
  const remove = (oldIndex: number) =>
    lines.push({ kind: "-", text: before[oldIndex] as string, oldNumber: oldIndex + 1, newNumber: undefined });
  const add = (newIndex: number) =>
    lines.push({ kind: "+", text: after[newIndex] as string, oldNumber: undefined, newNumber: newIndex + 1 });
  for (let index = 0; index < start; index++) keep(index, index);
  const rows = oldEnd - start;
  const columns = newEnd - start;
  if (rows * columns > maxTableCells) {
    for (let index = start; index < oldEnd; index++) remove(index);
    for (let index = start; index < newEnd; index++) add(index);
  } else {
    // common[i][j]: the longest common subsequence of before[start+i…] and after[start+j…].
    const width = columns + 1;
    const common = new Uint32Array((rows + 1) * width);
    for (let i = rows - 1; i >= 0; i--)
      for (let j = columns - 1; j >= 0; j--)
        common[i * width + j] =
          before[start + i] === after[start + j]
            ? (common[(i + 1) * width + j + 1] as number) + 1
            : Math.max(common[(i + 1) * width + j] as number, common[i * width + j + 1] as number);
    let i = 0;
    let j = 0;
    while (i < rows || j < columns) {
      if (i < rows && j < columns && before[start + i] === after[start + j]) {
        keep(start + i++, start + j++);
      } else if (i < rows && (j === columns || (common[(i + 1) * width + j] as number) >= (common[i * width + j + 1] as number))) {
        remove(start + i++); // removals before additions, as diff prints them
      } else add(start + j++);
    }
  }
  for (let offset = 0; offset < before.length - oldEnd; offset++) keep(oldEnd + offset, newEnd + offset);
  return lines;
}

/** The changed lines with `context` kept lines around each change; nearby changes share a hunk. */
export function groupHunks(lines: readonly DiffLine[], context = 3): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  let current: DiffHunk | undefined;
  let lastChange = -Infinity;
  lines.forEach((line, index) => {
    if (line.kind === " ") return;
    const from = Math.max(0, index - context, lastChange + context + 1);
    if (current && index - lastChange <= 2 * context + 1) {
      for (let at = lastChange + 1; at <= index; at++) current.push(lines[at] as DiffLine);
    } else {
      if (current) hunks.push(closeHunk(current, lines, lastChange, context));
      current = lines.slice(from, index + 1);
    }
    lastChange = index;
  });
  if (current) hunks.push(closeHunk(current, lines, lastChange, context));
  return hunks;
}

function closeHunk(hunk: DiffHunk, lines: readonly DiffLine[], lastChange: number, context: number): DiffHunk {
  return [...hunk, ...lines.slice(lastChange + 1, lastChange + 1 + context)];
}

/** Lines of a text; a final line break ends the last line rather than starting an empty one. CRLF counts as LF. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
