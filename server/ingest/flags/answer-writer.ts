// Flag answers written as text from cached pieces. An answer for 50 flags is ~13 KB of JSON,
// and serialising it was the largest single cost of a flag request (measured: JSON.stringify
// ~19% of the service's CPU at full load). Each flag's piece depends only on its outcome code
// (engine/flags/evaluate.ts: reason, rule, variant), so it is built once with the pure builders
// of engine/flags/responses.ts and reused; the answer is the pieces joined inside the envelope.
import { nativeFlagsResponse, NO_REPLAY_CONFIG_FIELDS, posthogFlagsV2Response, type PosthogResponseOptions } from "../../../engine/flags/responses.ts";
import type { FlagEvaluator, FlagOutcomes } from "../../../engine/flags/evaluate.ts";
import type { FlagResult } from "../../../engine/flags/types.ts";

const configFieldsText = JSON.stringify(NO_REPLAY_CONFIG_FIELDS).slice(1, -1);
/** A flag's piece does not depend on the envelope's fields. */
const pieceOptions: PosthogResponseOptions = { requestId: "", evaluatedAtMs: 0, includeConfig: false };

const nativeDetail = (result: FlagResult) => nativeFlagsResponse([result]).flags[result.key];

export class FlagAnswerWriter {
  /** Per flag (by index), its pieces by outcome code. */
  private readonly v2Pieces: Map<number, string>[];
  private readonly nativePieces: Map<number, string>[];
  /** Reused for each answer's pieces: answers are written synchronously, one at a time. */
  private readonly parts: string[] = [];

  constructor(private readonly evaluator: FlagEvaluator) {
    this.v2Pieces = evaluator.flags.map(() => new Map());
    this.nativePieces = evaluator.flags.map(() => new Map());
  }

  private readonly v2Detail = (result: FlagResult, flagIndex: number) => posthogFlagsV2Response([result], [this.evaluator.flags[flagIndex]!], pieceOptions).flags[result.key];

  // The envelope and the pieces joined in one go: one flat string, no intermediate ones.
  private written(head: string, outcomes: FlagOutcomes, pieces: Map<number, string>[], build: (result: FlagResult, flagIndex: number) => unknown, tail: string): string {
    const parts = this.parts;
    parts.length = 0;
    parts.push(head);
    for (let at = 0; at < outcomes.count; at++) {
      const flagIndex = outcomes.flagIndexes[at]!;
      const code = outcomes.codes[at]!;
      const cache = pieces[flagIndex]!;
      let text = cache.get(code);
      if (text === undefined) {
        const result = this.evaluator.result(flagIndex, code);
        text = `${JSON.stringify(result.key)}:${JSON.stringify(build(result, flagIndex))}`;
        cache.set(code, text);
      }
      if (at > 0) parts.push(",");
      parts.push(text);
    }
    parts.push(tail);
    return parts.join("");
  }

  /** /flags?v=2 and /decide?v=4: the text of posthogFlagsV2Response(results, flags, options). */
  posthogV2(outcomes: FlagOutcomes, options: PosthogResponseOptions): string {
    const config = options.includeConfig ? `,${configFieldsText}` : "";
    const tail = `},"requestId":${JSON.stringify(options.requestId)},"evaluatedAt":${options.evaluatedAtMs}${config}}`;
    return this.written(`{"errorsWhileComputingFlags":false,"flags":{`, outcomes, this.v2Pieces, this.v2Detail, tail);
  }

  /** Our own POST /flags: the text of nativeFlagsResponse(results). */
  native(outcomes: FlagOutcomes): string {
    return this.written(`{"flags":{`, outcomes, this.nativePieces, nativeDetail, "}}");
  }
}
