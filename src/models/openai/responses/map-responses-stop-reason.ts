import type { StopReason } from "../../../core/types.js";
import type { ResponsesResponse } from "./responses-wire-types.js";

/** What the output said, beside the response's status. */
export type ResponsesOutcome = { refused: boolean; hasToolCalls: boolean };

/**
 * Maps a response's `status` and `incomplete_details.reason` to our stop reason. An incomplete response
 * was cut off by the output limit (`max_output_tokens`) or by the content filter (`content_filter`, a
 * refusal); a `refusal` content part is a refusal; function calls ask for tools; anything else ended its turn.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-incomplete_details
 */
export function mapResponsesStopReason(
  response: Pick<ResponsesResponse, "status" | "incomplete_details">,
  outcome: ResponsesOutcome,
): StopReason {
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason;
    if (reason === "max_output_tokens") return "max_tokens";
    if (reason === "content_filter") return "refusal";
  }
  if (outcome.refused) return "refusal";
  return outcome.hasToolCalls ? "tool_use" : "end_turn";
}
