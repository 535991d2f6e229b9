// The project's UTC offsets over a query's range as a few segments, so hand-written SQL can
// bucket by local day or week with integer arithmetic on UTC milliseconds (what a DuckDB expert
// writes instead of formatting a time zone per row), DST changes included exactly.
import { ZoneOffsets } from "../../engine/zone-offsets.ts";

const hourMs = 3_600_000;

/** `offsetMs` (local minus UTC) holds from `fromMs` until the next segment's `fromMs`. */
export interface ZoneSegment {
  fromMs: number;
  offsetMs: number;
}

/** Segments covering [fromMs, toMs): sampled hourly, each change bisected to the millisecond. */
export function zoneSegments(zone: string, fromMs: number, toMs: number): ZoneSegment[] {
  const offsets = ZoneOffsets.of(zone);
  const segments: ZoneSegment[] = [{ fromMs, offsetMs: offsets.offsetIn(fromMs) }];
  for (let at = fromMs; at < toMs; at += hourMs) {
    const next = Math.min(at + hourMs, toMs - 1);
    if (offsets.offsetIn(next) === segments.at(-1)!.offsetMs) continue;
    let before = at;
    let after = next;
    while (after - before > 1) {
      const middle = Math.floor((before + after) / 2);
      if (offsets.offsetIn(middle) === segments.at(-1)!.offsetMs) before = middle;
      else after = middle;
    }
    segments.push({ fromMs: after, offsetMs: offsets.offsetIn(after) });
  }
  return segments;
}

/** SQL for the local offset of `msSql` (UTC milliseconds): a CASE over the segments. */
export function offsetSql(msSql: string, segments: ZoneSegment[]): string {
  if (segments.length === 1) return String(segments[0]!.offsetMs);
  const branches = segments.slice(1).map((segment, index) => `WHEN ${msSql} < ${segment.fromMs} THEN ${segments[index]!.offsetMs}`);
  return `CASE ${branches.join(" ")} ELSE ${segments.at(-1)!.offsetMs} END`;
}
