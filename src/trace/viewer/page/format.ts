/// <reference lib="dom" />

/** `850 µs`, `12.3 ms`, `4.56 s`, `3 min 12 s`. */
export function formatDuration(milliseconds: number): string {
  if (!Number.isFinite(milliseconds)) return "–";
  if (milliseconds < 1) return `${Math.round(milliseconds * 1000)} µs`;
  if (milliseconds < 1000)
    return `${milliseconds < 10 ? milliseconds.toFixed(2) : milliseconds < 100 ? milliseconds.toFixed(1) : Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(2) : seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** `1,234` */
export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

/** `$0.0123`, `$1.24`; `–` when unknown (a model without a price). */
export function formatCost(dollars: number | undefined): string {
  if (dollars === undefined) return "–";
  if (dollars === 0) return "$0";
  if (dollars < 0.01) return `$${dollars.toPrecision(2)}`;
  return `$${dollars.toFixed(dollars < 10 ? 3 : 2)}`;
}

/** `2026-11-30 22:41:58` in the browser's time zone. */
export function formatTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** The first line of a text, cut to `length` characters. */
export function preview(text: string, length = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}
