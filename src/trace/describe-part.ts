import { createHash } from "node:crypto";
import type { ContentPart } from "../core/types.js";
import { describePartSize, type GenAiPart } from "./gen-ai-attributes.js";

/** An image or a document as a trace records it: its kind, type and size, and the SHA-256 of its bytes. */
export function describePartWithDigest(part: ContentPart): GenAiPart {
  const described = describePartSize(part);
  if (part.data === undefined || described.type !== "blob") return described;
  return { ...described, sha256: createHash("sha256").update(Buffer.from(part.data, "base64")).digest("hex") };
}
