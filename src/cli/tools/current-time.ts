import { ToolError } from "../../errors.js";
import { defineTool } from "../../tools/tool.js";

/** The current date and time, so the model need not guess it. */
export const currentTimeTool = defineTool({
  name: "current_time",
  description: "Returns the current date and time, in the given IANA time zone (e.g. Europe/Paris) or the machine's own.",
  parameters: {
    type: "object",
    properties: { timeZone: { type: "string", description: "IANA time zone name, e.g. Asia/Shanghai. Optional." } },
    additionalProperties: false,
  },
  readOnly: true,
  execute: ({ timeZone }) => describeTime(new Date(), typeof timeZone === "string" && timeZone !== "" ? timeZone : undefined),
});

/** `2025-06-01 14:03:09 (Europe/Paris, Sunday); ISO 2025-06-01T12:03:09.000Z` */
export function describeTime(now: Date, timeZone?: string): string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-CA", { timeZone, dateStyle: "short", timeStyle: "medium", hourCycle: "h23" });
  } catch {
    throw new ToolError(`Unknown time zone ${JSON.stringify(timeZone)}: use an IANA name such as Europe/Paris.`);
  }
  const zone = format.resolvedOptions().timeZone;
  const weekday = new Intl.DateTimeFormat("en-US", { timeZone: zone, weekday: "long" }).format(now);
  return `${format.format(now).replace(",", "")} (${zone}, ${weekday}); ISO ${now.toISOString()}`;
}
