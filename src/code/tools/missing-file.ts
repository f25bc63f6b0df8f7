import { opendir } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import type { Workspace } from "../workspace.js";

/** Directory entries looked at when suggesting names: a folder of a million files is not listed whole. */
const maxEntries = 2000;

/**
 * The observation for a file that does not exist: says so, and names up to three files of the same folder whose
 * names are close (another case, another extension, a typo), or that the folder does not exist either.
 */
export async function describeMissingFile(workspace: Workspace, absolute: string): Promise<string> {
  const shown = workspace.display(absolute);
  const folder = dirname(absolute);
  const names = await listNames(folder);
  if (!names) return `File does not exist: ${shown} (its folder ${workspace.display(folder)} does not exist either).`;
  const similar = findSimilarNames(basename(absolute), names).map((name) => workspace.display(join(folder, name)));
  return similar.length > 0 ? `File does not exist: ${shown}. Did you mean ${similar.join(" or ")}?` : `File does not exist: ${shown}.`;
}

async function listNames(folder: string): Promise<string[] | undefined> {
  try {
    const names: string[] = [];
    for await (const entry of await opendir(folder)) {
      names.push(entry.name);
      if (names.length >= maxEntries) break; // leaving the loop closes the directory
    }
    return names;
  } catch {
    return undefined;
  }
}

/** Names close to `wanted`, closest first: the same name in another case or with another extension, or a few typos away. */
export function findSimilarNames(wanted: string, names: readonly string[], limit = 3): string[] {
  const lower = wanted.toLowerCase();
  const stem = stemOf(lower);
  const allowed = Math.max(1, Math.floor(wanted.length / 4));
  const scored: [string, number][] = [];
  for (const name of names) {
    const candidate = name.toLowerCase();
    if (candidate === lower) scored.push([name, 0]);
    else if (stem !== "" && stemOf(candidate) === stem) scored.push([name, 1]);
    else {
      const distance = editDistance(lower, candidate, allowed);
      if (distance <= allowed) scored.push([name, 1 + distance]);
    }
  }
  return scored
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([name]) => name);
}

function stemOf(name: string): string {
  return name.slice(0, name.length - extname(name).length);
}

/** Levenshtein distance, giving up (returning `bound + 1`) as soon as it must exceed `bound`. */
function editDistance(a: string, b: string, bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > bound) return bound + 1;
    previous = current;
  }
  return previous[b.length] ?? bound + 1;
}
