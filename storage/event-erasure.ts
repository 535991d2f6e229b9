// Which stored events belong to the persons an erasure erases, and a Parquet part rewritten
// without them. An event is theirs when its person index is one of theirs (the persons named
// and those merged into them) or its distinct id is one of their distinct ids. Another person's
// event may carry one of their ids as its anonymous id (a shared device: the anonymous id was
// merged into the erased person, and a later login of someone else names it, the merge refused):
// that event stays, with the anonymous id (`anon_id` and the `$anon_distinct_id` and
// `$device_id` properties) blanked.
// The rewritten part keeps the other rows in their order (so it stays sorted by person and
// time) with dictionaries and property columns rebuilt from those rows alone: nothing of the
// erased rows (a value, a property key only they had, a statistic) is left in it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tableFromIPC, type Table } from "apache-arrow";
import { vectorValues } from "./arrow-vectors.ts";
import { writeFileAtomic } from "./atomic-file.ts";
import { openParquetFile, parquetRowGroupRows, readBatchRows, readParquetTable } from "./data-files.ts";
import { eventsToTable } from "./event-buffer.ts";
import { groupColumn, tableBytes, tableToEvents } from "./event-columns.ts";
import type { BatchRecordView, StoredEvent } from "./event-record.ts";
import type { PartEntry } from "./manifest.ts";
import { encodeParquetFile } from "./parquet/parquet-file-writer.ts";
import { groupTypesPerProjectMax } from "./person-store.ts";
import { MergeInput } from "./table-merge.ts";

/** The columns that tell whose an event is: a part is read whole only when they name one of the subjects. */
const identityColumns = ["distinct_id", "anon_id", "person_index"];

/** The events to erase: the project's, of these distinct ids or person indexes. */
export interface EventSubjects {
  projectId: string;
  distinctIds: string[];
  personIndexes: number[];
}

/** PostHog's properties that carry the anonymous id (as server/ingest/contact-ids.ts names them). */
const anonymousIdProperties = ["$anon_distinct_id", "$device_id"];

/**
 * What erasing took from a table: the rows left, those of them whose anonymous id is to be
 * blanked, and how many rows went (and how many of those were linked to a group).
 */
export interface TableErasure {
  kept: Int32Array;
  blanked: Int32Array;
  removed: number;
  groupLinks: number;
}

export class EventMatcher {
  private readonly distinctIds: ReadonlySet<string>;
  private readonly personIndexes: ReadonlySet<number>;

  constructor(readonly subjects: EventSubjects) {
    this.distinctIds = new Set(subjects.distinctIds);
    this.personIndexes = new Set(subjects.personIndexes);
  }

  /** The rows of an event table (a part, a segment or buffered rows of the project) that are not the subjects'. */
  filter(table: Table): TableErasure {
    const column = (name: string) => {
      const vector = table.getChild(name);
      return vector ? vectorValues(vector) : new Array<null>(table.numRows).fill(null);
    };
    const distinct = column("distinct_id");
    const anonymous = column("anon_id");
    const persons = column("person_index");
    const groups = Array.from({ length: groupTypesPerProjectMax }, (_, slot) => column(groupColumn(slot)));
    const kept: number[] = [];
    const blanked: number[] = [];
    let groupLinks = 0;
    for (let row = 0; row < table.numRows; row++) {
      const theirs = this.personIndexes.has(persons[row] as number) || this.distinctIds.has(distinct[row] as string);
      if (!theirs) {
        kept.push(row);
        if (anonymous[row] !== null && this.distinctIds.has(anonymous[row] as string)) blanked.push(row);
      } else if (groups.some((values) => values[row] !== null && values[row] !== undefined)) groupLinks++;
    }
    return { kept: Int32Array.from(kept), blanked: Int32Array.from(blanked), removed: table.numRows - kept.length, groupLinks };
  }

  /** Whether erasing changes a table: a row goes, or a kept row's anonymous id is blanked. */
  changes(erasure: TableErasure): boolean {
    return erasure.removed > 0 || erasure.blanked.length > 0;
  }

  /** Another person's event without the subjects' id as its anonymous id. */
  blank(event: StoredEvent): StoredEvent {
    const properties = { ...event.properties };
    for (const name of anonymousIdProperties) if (this.distinctIds.has(properties[name] as string)) delete properties[name];
    return { ...event, anon_id: null, properties };
  }

  /** Whether a Parquet part holds an event of the subjects (reading only the columns that say whose each event is). */
  async inPart(path: string): Promise<boolean> {
    const file = await openParquetFile(path);
    try {
      const columns = tableFromIPC((await file.read({ columns: identityColumns, batchSize: readBatchRows })).intoIPCStream());
      return this.changes(this.filter(columns));
    } finally {
      file.free();
    }
  }

  /** Whether a WAL record holds an event of the subjects. */
  inRecord(record: BatchRecordView): boolean {
    if (record.header.project_id !== this.subjects.projectId) return false;
    return record.accepted.some((event) => {
      const raw = record.batch[event.index] as { distinct_id?: unknown } | undefined;
      return this.personIndexes.has(event.personIndex) || this.distinctIds.has(raw?.distinct_id as string);
    });
  }
}

/** A part's rows without the subjects' (and without their ids as others' anonymous ids), as a new part's bytes; null when no row is left. */
function partWithout(table: Table, erasure: TableErasure, matcher: EventMatcher): { parquet: Uint8Array; rows: number; arrowBytes: number } | null {
  if (erasure.kept.length === 0) return null;
  let kept = new MergeInput([table]).gather(erasure.kept);
  if (erasure.blanked.length > 0) {
    // Rebuilt from rows, so no dictionary or property column keeps the blanked ids.
    const blanked = new Set(erasure.blanked);
    kept = eventsToTable(tableToEvents(kept).map((event, at) => (blanked.has(erasure.kept[at]!) ? matcher.blank(event) : event)));
  }
  return { parquet: encodeParquetFile(kept, parquetRowGroupRows), rows: kept.numRows, arrowBytes: tableBytes(kept) };
}

/** The parts an erasure rewrote: the new ones (written, not yet named in the manifest), the files they replace, and the rows that went. */
export interface RewrittenParts {
  written: PartEntry[];
  replaced: string[];
  removed: number;
  groupLinks: number;
}

/**
 * Writes, for each of `parts` holding the subjects' rows, a part without them (none when no row
 * is left) under the name `nameOf` gives; the caller swaps them in. On failure the new files
 * are removed again.
 */
export async function rewriteParts(dataDir: string, parts: readonly PartEntry[], matcher: EventMatcher, nameOf: (part: PartEntry) => string): Promise<RewrittenParts> {
  const rewritten: RewrittenParts = { written: [], replaced: [], removed: 0, groupLinks: 0 };
  try {
    for (const part of parts) {
      if (!(await matcher.inPart(join(dataDir, part.file)))) continue;
      const table = readParquetTable(join(dataDir, part.file));
      const erasure = matcher.filter(table);
      if (!matcher.changes(erasure)) continue;
      rewritten.removed += erasure.removed;
      rewritten.groupLinks += erasure.groupLinks;
      rewritten.replaced.push(part.file);
      const kept = partWithout(table, erasure, matcher);
      if (!kept) continue;
      const file = nameOf(part);
      writeFileAtomic(join(dataDir, file), kept.parquet);
      rewritten.written.push({ ...part, file, rows: kept.rows, bytes: kept.parquet.byteLength, arrowBytes: kept.arrowBytes });
    }
  } catch (error) {
    for (const part of rewritten.written) rmSync(join(dataDir, part.file), { force: true });
    throw error;
  }
  return rewritten;
}
