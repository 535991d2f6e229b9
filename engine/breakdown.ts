// Breakdowns: each row's value of the breakdown property (as text; absent is its own value),
// ranked by volume so the top N get their own rows and the rest are summed as "other".
// Rank: events matching any series (counted once per series they match, unweighted), more
// first; ties by value text, absent last.
import { numbersAsText, type TextColumn } from "./columns.ts";
import { WordIds } from "../storage/word-ids.ts";
import type { Breakdown } from "./ir/query.ts";
import type { LoadedChunk } from "./query-data.ts";
import { groupColumn } from "../storage/event-columns.ts";
import { sameBit, type SeriesRows } from "./selection.ts";

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

/** A chunk's breakdown column: each row's code, and each code's global value id at index code + 1 (index 0: absent). */
export interface ChunkValues {
  codes: Int32Array;
  idOfCode: Int32Array;
}

/** Breakdown values across chunks: global ids, volumes, and the ranked groups once counted. */
export class BreakdownValues {
  readonly ids = new WordIds();
  /** Volume of each global value id at index id + 1 (index 0: absent), grown as ids appear. */
  private volumes = new Float64Array(64);

  chunkValues(chunk: LoadedChunk, breakdown: Breakdown): ChunkValues {
    const column = breakdownText(chunk, breakdown);
    const idOfCode = new Int32Array(column.words.length + 1);
    idOfCode[0] = absentValue;
    column.words.forEach((word, code) => (idOfCode[code + 1] = this.ids.id(word)));
    return { codes: column.codes, idOfCode };
  }

  /** Global value id of each row of the chunk (absentValue where absent). */
  rowValues(chunk: LoadedChunk, breakdown: Breakdown): Int32Array {
    const { codes, idOfCode } = this.chunkValues(chunk, breakdown);
    const out = new Int32Array(codes.length);
    for (let row = 0; row < out.length; row++) out[row] = idOfCode[codes[row]! + 1]!;
    return out;
  }

  /** Counts each row a series reads once towards its value's volume. */
  count({ codes, idOfCode }: ChunkValues, { rows, events, code }: SeriesRows): void {
    // Counted per chunk code first: a dense array indexed by code, folded into the ids once.
    const perCode = new Float64Array(idOfCode.length);
    if (events) for (let i = 0; i < rows.length; i++) perCode[codes[rows[i]!]! + 1]! += sameBit(events[rows[i]!]!, code);
    else for (let i = 0; i < rows.length; i++) perCode[codes[rows[i]!]! + 1]!++;
    this.growVolumes();
    for (let index = 0; index < perCode.length; index++) this.volumes[idOfCode[index]! + 1]! += perCode[index]!;
  }

  /** Adds volumes counted elsewhere: `counts[id + 1]` for each value id (index 0: absent). */
  addVolumes(counts: Float64Array): void {
    this.growVolumes();
    for (let index = 0; index < counts.length; index++) this.volumes[index]! += counts[index]!;
  }

  private growVolumes(): void {
    if (this.volumes.length < this.ids.words.length + 1) {
      const grown = new Float64Array(Math.max(this.ids.words.length + 1, this.volumes.length * 2));
      grown.set(this.volumes);
      this.volumes = grown;
    }
  }

  /** Each chunk code's group (index code + 1) given the group of each global value id. */
  groupsOfCodes({ idOfCode }: ChunkValues, slotOf: (value: number) => number): Int32Array {
    return idOfCode.map(slotOf);
  }

  /** The ranked values (top `limit`) and whether any other value was seen. */
  rank(limit: number): { top: number[]; hasOther: boolean } {
    const volumes = new Map<number, number>();
    this.volumes.forEach((volume, index) => {
      if (volume > 0) volumes.set(index - 1, volume);
    });
    return rankValues(volumes, limit, (id) => this.label(id));
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
