// Breakdowns: each row's value of the breakdown property (as text; absent is its own value),
// ranked by volume so the top N get their own rows and the rest are summed as "other".
// Rank: events matching any series (counted once per series they match, unweighted), more
// first; ties by value text, absent last.
import { numbersAsText, type TextColumn } from "./columns.ts";
import { WordIds } from "../storage/word-ids.ts";
import type { Breakdown } from "./ir/query.ts";
import type { LoadedChunk } from "./query-data.ts";
import { groupColumn } from "../storage/event-columns.ts";

/** The global id standing for "no value". */
export const absentValue = -1;

export function breakdownText(chunk: LoadedChunk, breakdown: Breakdown): TextColumn {
  const column =
    breakdown.type === "event" ? chunk.eventProperty(breakdown.property!)
    : breakdown.type === "person" ? chunk.personProperty(breakdown.property!)
    : breakdown.type === "group" ? chunk.text(groupColumn(breakdown.groupTypeIndex!))
    : chunk.text(breakdown.property!);
  return column.kind === "number" ? numbersAsText(column) : column;
}

/** Breakdown values across chunks: global ids, volumes, and the ranked groups once counted. */
export class BreakdownValues {
  readonly ids = new WordIds();
  private readonly volumes = new Map<number, number>();

  /** Global value id of each row of the chunk (absentValue where absent). */
  rowValues(chunk: LoadedChunk, breakdown: Breakdown): Int32Array {
    const column = breakdownText(chunk, breakdown);
    const remap = this.ids.remap(column.words);
    const out = new Int32Array(column.codes.length);
    for (let row = 0; row < out.length; row++) {
      const code = column.codes[row]!;
      out[row] = code < 0 ? absentValue : remap[code]!;
    }
    return out;
  }

  count(values: Int32Array, selection: Uint32Array): void {
    for (let i = 0; i < selection.length; i++) {
      const value = values[selection[i]!]!;
      this.volumes.set(value, (this.volumes.get(value) ?? 0) + 1);
    }
  }

  /** The ranked values (top `limit`) and whether any other value was seen. */
  rank(limit: number): { top: number[]; hasOther: boolean } {
    return rankValues(this.volumes, limit, (id) => this.label(id));
  }

  label(id: number): string | null {
    return id === absentValue ? null : this.ids.words[id]!;
  }
}

/** Values ranked by volume (more first; ties by text, absent last): the top `limit` and whether more exist. */
export function rankValues(volumes: Map<number, number>, limit: number, textOf: (value: number) => string | null): { top: number[]; hasOther: boolean } {
  const ordered = [...volumes.entries()].sort(([a, countA], [b, countB]) => {
    if (countA !== countB) return countB - countA;
    const [textA, textB] = [textOf(a), textOf(b)];
    if (textA === null) return 1;
    if (textB === null) return -1;
    return textA < textB ? -1 : textA > textB ? 1 : 0;
  });
  return { top: ordered.slice(0, limit).map(([value]) => value), hasOther: ordered.length > limit };
}

/** Group slot of each global value id: its rank among the top values, or `other`. */
export function groupSlots(top: number[], other: number): (value: number) => number {
  const slots = new Map(top.map((id, slot) => [id, slot]));
  return (value) => slots.get(value) ?? other;
}
