// Flag answers written as text from cached pieces. An answer for 50 flags is ~13 KB of JSON,
// and serialising it was the largest single cost of a flag request (measured: JSON.stringify
// ~19% of the service's CPU at full load). Each flag's piece depends only on its result
// (enabled, variant, reason), so it is built once with the pure builders of
// engine/flags/responses.ts and reused; the answer is the pieces joined inside the envelope.
import { nativeFlagsResponse, NO_REPLAY_CONFIG_FIELDS, posthogFlagsV2Response, type PosthogResponseOptions } from "../../../engine/flags/responses.ts";
import type { FlagDefinition, FlagResult } from "../../../engine/flags/types.ts";
import { FLAG_REASON } from "../../../engine/flags/evaluate.ts";

const configFieldsText = JSON.stringify(NO_REPLAY_CONFIG_FIELDS).slice(1, -1);

const reasonCodes: readonly string[] = Object.values(FLAG_REASON);

/** One flag's cached pieces, keyed by a number made of the result's parts (no string per lookup). */
interface FlagPieces {
  variantIndex: Map<string, number>;
  v2: Map<number, string>;
  native: Map<number, string>;
}

export class FlagAnswerWriter {
  private readonly byKey: Map<string, FlagDefinition>;
  private readonly pieces = new Map<string, FlagPieces>();

  constructor(definitions: readonly FlagDefinition[]) {
    this.byKey = new Map(definitions.map((flag) => [flag.key, flag]));
    for (const flag of definitions) {
      this.pieces.set(flag.key, { variantIndex: new Map(flag.variants.map((variant, index) => [variant.key, index])), v2: new Map(), native: new Map() });
    }
  }

  private piece(kind: "v2" | "native", result: FlagResult, build: (result: FlagResult) => unknown): string {
    const flagPieces = this.pieces.get(result.key)!;
    const variant = result.variant === null ? 0 : flagPieces.variantIndex.get(result.variant)! + 1;
    const key = (((variant * reasonCodes.length + reasonCodes.indexOf(result.reason.code)) * 2 + (result.enabled ? 1 : 0)) * 1024) + (result.reason.condition_index ?? -1) + 1;
    const cache = flagPieces[kind];
    let text = cache.get(key);
    if (text === undefined) {
      text = `${JSON.stringify(result.key)}:${JSON.stringify(build(result))}`;
      cache.set(key, text);
    }
    return text;
  }

  /** /flags?v=2 and /decide?v=4: the text of posthogFlagsV2Response(results, definitions, options). */
  posthogV2(results: readonly FlagResult[], options: PosthogResponseOptions): string {
    const pieces = results.map((result) =>
      this.piece("v2", result, (one) => posthogFlagsV2Response([one], [this.byKey.get(one.key)!], options).flags[one.key]),
    );
    const config = options.includeConfig ? `,${configFieldsText}` : "";
    return `{"errorsWhileComputingFlags":false,"flags":{${pieces.join(",")}},"requestId":${JSON.stringify(options.requestId)},"evaluatedAt":${options.evaluatedAtMs}${config}}`;
  }

  /** Our own POST /flags: the text of nativeFlagsResponse(results). */
  native(results: readonly FlagResult[]): string {
    return `{"flags":{${results.map((result) => this.piece("native", result, (one) => nativeFlagsResponse([one]).flags[one.key])).join(",")}}}`;
  }
}
