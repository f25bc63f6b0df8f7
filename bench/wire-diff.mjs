// S3's analysis: what a request body carries beyond the bare request, as paths with array indices folded
// ("tools[].function.strict"), so the same addition in every request and every tool reads as one line.

/** The structural differences of `actual` from `reference`: added, removed and changed leaves. */
export function diffJson(actual, reference, path = "", out = []) {
  if (isObject(actual) && isObject(reference)) {
    for (const key of Object.keys(actual)) {
      const child = path ? `${path}.${key}` : key;
      if (!(key in reference)) out.push({ kind: "added", path: child, value: actual[key] });
      else diffJson(actual[key], reference[key], child, out);
    }
    for (const key of Object.keys(reference))
      if (!(key in actual)) out.push({ kind: "removed", path: path ? `${path}.${key}` : key, value: reference[key] });
  } else if (Array.isArray(actual) && Array.isArray(reference)) {
    const length = Math.max(actual.length, reference.length);
    for (let index = 0; index < length; index++) {
      const child = `${path}[${index}]`;
      if (index >= reference.length) out.push({ kind: "added", path: child, value: actual[index] });
      else if (index >= actual.length) out.push({ kind: "removed", path: child, value: reference[index] });
      else diffJson(actual[index], reference[index], child, out);
    }
  } else if (JSON.stringify(actual) !== JSON.stringify(reference)) {
    out.push({ kind: "changed", path, value: actual, was: reference });
  }
  return out;
}

/** Differences of many requests, folded by kind and index-free path, with how often each occurs. */
export function foldDifferences(differences) {
  const folded = new Map();
  for (const difference of differences) {
    const path = difference.path.replace(/\[\d+\]/g, "[]");
    const key = `${difference.kind} ${path}`;
    const entry = folded.get(key) ?? { kind: difference.kind, path, count: 0, example: difference };
    entry.count++;
    folded.set(key, entry);
  }
  return [...folded.values()];
}

/** One line per folded difference, e.g. `+ tools[].function.strict = true (×4)`. */
export function describeDifference({ kind, path, count, example }) {
  const sign = { added: "+", removed: "−", changed: "~" }[kind];
  const value = short(JSON.stringify(example.value));
  const was = kind === "changed" ? ` (bare: ${short(JSON.stringify(example.was))})` : "";
  return `${sign} ${path} = ${value}${was} (×${count})`;
}

function short(text = "undefined") {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
