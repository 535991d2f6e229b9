// One partition's unsealed events, held as Arrow columns while they arrive: the storage
// worker appends each event of a WAL record straight from the parsed request JSON (no
// intermediate row objects), and a seal or a query snapshot takes the columns as a Table.
// The layout is event-columns.ts's: fixed columns, one typed column per property key, the
// rest of the properties as JSON text.
import { Table, makeVector, type Data, type Vector } from "apache-arrow";
import { BoolBuilder, DictionaryBuilder, Float64Builder, Int32Builder, TimestampBuilder, Utf8Builder } from "./column-builders.ts";
import {
  fixedColumnNames, mixedPropertyColumnPrefix, propertyColumnPrefix, propertyColumnsMax, tableToEvents, type PropertyKind,
} from "./event-columns.ts";
import { ipProperty, withoutIp } from "./ip-property.ts";
import { noLocation, readBatchRecord, type AcceptedEvent, type BatchRecordView, type EventBatchRecord, type Location, type StoredEvent } from "./event-record.ts";
import { groupTypesPerProjectMax } from "./person-store.ts";
import { ownValue, setOwn } from "./own-keys.ts";

type PropertyBuilder = Float64Builder | BoolBuilder | DictionaryBuilder | Utf8Builder;

interface PropertyColumn {
  kind: PropertyKind;
  builder: PropertyBuilder;
}

/** A property column as it was before a value of another type made it mixed. */
interface TurnedMixed {
  column: PropertyColumn;
  kind: PropertyKind;
  builder: PropertyBuilder;
}

/** A raw native event of a validated request body, as JSON.parse gave it. */
type RawEvent = Record<string, unknown>;

const noGroupKeys: readonly (string | null)[] = new Array(groupTypesPerProjectMax).fill(null);

function newPropertyColumn(kind: PropertyKind): PropertyColumn {
  const builder = kind === "number" ? new Float64Builder() : kind === "boolean" ? new BoolBuilder() : kind === "string" ? new DictionaryBuilder() : new Utf8Builder();
  return { kind, builder };
}

const scalarKind = (value: unknown): PropertyKind | null =>
  typeof value === "number" ? "number" : typeof value === "string" ? "string" : typeof value === "boolean" ? "boolean" : null;

/** A column's values so far as JSON text, for a key whose values turned out to mix types. */
function asMixed(column: PropertyColumn): Utf8Builder {
  const mixed = new Utf8Builder();
  const source = column.builder as Exclude<PropertyBuilder, Utf8Builder>;
  for (let row = 0; row < source.length; row++) {
    if (source.isPresent(row)) mixed.append(JSON.stringify(source.valueAt(row)));
    else mixed.appendNull();
  }
  return mixed;
}

export class EventBuffer {
  private readonly uuid = new Utf8Builder();
  private readonly event = new DictionaryBuilder();
  private readonly timestamp = new TimestampBuilder();
  private readonly distinctId = new Utf8Builder();
  private readonly anonId = new Utf8Builder();
  private readonly sessionId = new Utf8Builder();
  private readonly windowId = new Utf8Builder();
  private readonly libName = new DictionaryBuilder();
  private readonly libVersion = new DictionaryBuilder();
  private readonly consent = new DictionaryBuilder();
  private readonly sampleRate = new Float64Builder();
  private readonly geoCountry = new DictionaryBuilder();
  private readonly geoRegion = new DictionaryBuilder();
  private readonly geoCity = new DictionaryBuilder();
  private readonly geoTimezone = new DictionaryBuilder();
  private readonly isSuspect = new BoolBuilder();
  private readonly personIndex = new Int32Builder();
  private readonly groupKeys = Array.from({ length: groupTypesPerProjectMax }, () => new DictionaryBuilder());
  private readonly groups = new Utf8Builder();
  private readonly set = new Utf8Builder();
  private readonly setOnce = new Utf8Builder();
  /** JSON of the properties without a column (objects, arrays, keys past the column limit). */
  private readonly rest = new Utf8Builder();
  private readonly properties = new Map<string, PropertyColumn>();
  /** While appendRecord runs: the columns the record turned mixed, as they were before (truncate puts them back). */
  private turnedMixed: TurnedMixed[] | null = null;

  get rows(): number {
    return this.uuid.length;
  }

  /** Rows x property columns: the slots the property columns take (each is padded to every row). */
  get propertyCells(): number {
    return this.rows * this.properties.size;
  }

  /**
   * Every accepted event of a WAL record, with ingest's decisions applied: all of them or, if
   * one cannot be appended (the error is thrown), none.
   */
  appendRecord(record: BatchRecordView): void {
    const { locations, group_types: groupTypes } = record.header;
    const rows = this.rows;
    const propertyColumns = this.properties.size;
    this.turnedMixed = [];
    try {
      for (const accepted of record.accepted) this.appendWalEvent(record.batch[accepted.index]!, accepted, locations[accepted.location]!, groupTypes);
    } catch (error) {
      this.truncate(rows, propertyColumns, this.turnedMixed);
      throw error;
    } finally {
      this.turnedMixed = null;
    }
  }

  /**
   * Back to `rows` rows and the first `propertyColumns` property columns, with the columns
   * `turnedMixed` lists back in their kind (their builders were replaced, not written to, since).
   */
  private truncate(rows: number, propertyColumns: number, turnedMixed: readonly TurnedMixed[]): void {
    for (const { column, kind, builder } of turnedMixed) {
      column.kind = kind;
      column.builder = builder;
    }
    for (const builder of this.fixedBuilders()) builder.truncate(rows);
    let index = 0;
    for (const [key, column] of this.properties) {
      if (index++ < propertyColumns) column.builder.truncate(rows);
      else this.properties.delete(key);
    }
  }

  /** The fixed columns' builders, in file order (event-columns.ts fixedColumnNames). */
  private fixedBuilders(): (Utf8Builder | DictionaryBuilder | TimestampBuilder | Float64Builder | BoolBuilder | Int32Builder)[] {
    return [
      this.uuid, this.event, this.timestamp, this.distinctId, this.anonId, this.sessionId, this.windowId, this.libName, this.libVersion,
      this.consent, this.sampleRate, this.geoCountry, this.geoRegion, this.geoCity, this.geoTimezone, this.isSuspect, this.personIndex,
      ...this.groupKeys, this.groups, this.set, this.setOnce, this.rest,
    ];
  }

  private appendWalEvent(logged: RawEvent, accepted: AcceptedEvent, location: Location, groupTypes: Record<string, number>): void {
    // Ingest logs no `$ip`, but records logged by earlier versions may hold it.
    const raw = withoutIp(logged);
    const properties = raw.properties as Record<string, unknown>;
    // Format-3 records give all of a request's events one location, $geoip_disable or not.
    const place = properties.$geoip_disable === true ? noLocation : location;
    const groups = (raw.groups as Record<string, string> | null | undefined) ?? null;
    let groupKeys = noGroupKeys;
    if (groups) {
      const keys: (string | null)[] = new Array(groupTypesPerProjectMax).fill(null);
      for (const type in groups) {
        const slot = ownValue(groupTypes, type);
        if (slot !== undefined) keys[slot] = groups[type]!;
      }
      groupKeys = keys;
    }
    const lib = raw.lib as { name: string; version: string };
    this.appendFixed(
      (raw.uuid as string).toLowerCase(), raw.event as string, accepted.timestamp, raw.distinct_id as string,
      (raw.anon_id as string | null | undefined) ?? null,
      (raw.session_id as string | null | undefined)?.toLowerCase() ?? null,
      (raw.window_id as string | null | undefined)?.toLowerCase() ?? null,
      lib.name, lib.version, (raw.consent as string | null | undefined) ?? "granted", accepted.sampleRate, place,
      accepted.isSuspect, accepted.personIndex, groupKeys, groups,
      (raw.$set as Record<string, unknown> | null | undefined) ?? null,
      (raw.$set_once as Record<string, unknown> | null | undefined) ?? null,
    );
    // Sampling's rate replaces the client's: it already includes it (capture.ts sampleRate).
    this.appendProperties(properties, accepted.sampleRate < 1 ? accepted.sampleRate : null);
  }

  /** A stored event as it is (tests, and rows read back from files). */
  appendStored(row: StoredEvent): void {
    const place = { country: row.geo_country, region: row.geo_region, city: row.geo_city, timezone: row.geo_timezone };
    this.appendFixed(
      row.uuid, row.event, row.timestamp, row.distinct_id, row.anon_id, row.session_id, row.window_id, row.lib_name, row.lib_version,
      row.consent, row.sample_rate, place, row.is_suspect, row.person_index, row.group_keys, row.groups, row.set, row.set_once,
    );
    this.appendProperties(row.properties, null);
  }

  private appendFixed(
    uuid: string, event: string, timestamp: number, distinctId: string, anonId: string | null, sessionId: string | null,
    windowId: string | null, libName: string, libVersion: string, consent: string, sampleRate: number, place: Location,
    isSuspect: boolean, personIndex: number, groupKeys: readonly (string | null)[], groups: Record<string, string> | null,
    set: Record<string, unknown> | null, setOnce: Record<string, unknown> | null,
  ): void {
    this.uuid.append(uuid);
    this.event.append(event);
    this.timestamp.append(timestamp);
    this.distinctId.append(distinctId);
    appendText(this.anonId, anonId);
    appendText(this.sessionId, sessionId);
    appendText(this.windowId, windowId);
    this.libName.append(libName);
    this.libVersion.append(libVersion);
    this.consent.append(consent);
    this.sampleRate.append(sampleRate);
    appendText(this.geoCountry, place.country);
    appendText(this.geoRegion, place.region);
    appendText(this.geoCity, place.city);
    appendText(this.geoTimezone, place.timezone);
    this.isSuspect.append(isSuspect);
    this.personIndex.append(personIndex);
    for (let slot = 0; slot < groupTypesPerProjectMax; slot++) appendText(this.groupKeys[slot]!, groupKeys[slot] ?? null);
    appendJson(this.groups, groups);
    appendJson(this.set, set);
    appendJson(this.setOnce, setOnce);
  }

  /**
   * Each property into its column (a property whose value is null is stored as absent: null and
   * "not set" mean the same in queries); `$ip` is never stored (appendWalEvent drops it from
   * logged events; this also covers rows given as they are); `sampleRate`, when given, is stored
   * as `$sample_rate`.
   */
  private appendProperties(properties: Record<string, unknown>, sampleRate: number | null): void {
    const row = this.rest.length;
    let rest: Record<string, unknown> | null = null;
    for (const key in properties) {
      if (key === ipProperty || (sampleRate !== null && key === "$sample_rate")) continue;
      const value = properties[key];
      if (value === null || value === undefined) continue;
      if (!this.appendProperty(key, value, row)) setOwn((rest ??= {}), key, value);
    }
    if (sampleRate !== null) this.appendProperty("$sample_rate", sampleRate, row);
    appendJson(this.rest, rest);
  }

  /** False when the value cannot go in a column (an object or array, or a new key past the column limit). */
  private appendProperty(key: string, value: unknown, row: number): boolean {
    const kind = scalarKind(value);
    let column = this.properties.get(key);
    if (!column) {
      if (kind === null || this.properties.size >= propertyColumnsMax) return false;
      column = newPropertyColumn(kind);
      this.properties.set(key, column);
    }
    if (column.kind !== kind && column.kind !== "mixed") {
      if (kind === null) return false;
      this.turnedMixed?.push({ column, kind: column.kind, builder: column.builder });
      column.builder = asMixed(column);
      column.kind = "mixed";
    }
    column.builder.padTo(row);
    if (column.kind === "mixed") (column.builder as Utf8Builder).append(JSON.stringify(value));
    else if (column.kind === "number") (column.builder as Float64Builder).append(value as number);
    else if (column.kind === "boolean") (column.builder as BoolBuilder).append(value as boolean);
    else (column.builder as DictionaryBuilder).append(value as string);
    return true;
  }

  /**
   * The rows so far as a table: fixed columns in file order, then the property columns, most
   * often set first (then by key). The buffer stays usable.
   */
  toTable(): Table {
    const rows = this.rows;
    const fixed: Data[] = this.fixedBuilders().map((builder) => builder.finish());
    const columns: Record<string, Vector> = {};
    fixedColumnNames.forEach((name, index) => (columns[name] = makeVector(fixed[index]!)));
    const keys = [...this.properties.entries()].sort(([a, x], [b, y]) => y.builder.present - x.builder.present || (a < b ? -1 : 1));
    for (const [key, column] of keys) {
      column.builder.padTo(rows);
      const data: Data = column.builder.finish();
      columns[(column.kind === "mixed" ? mixedPropertyColumnPrefix : propertyColumnPrefix) + key] = makeVector(data);
    }
    return new Table(columns);
  }
}

function appendText(builder: DictionaryBuilder | Utf8Builder, value: string | null): void {
  if (value === null) builder.appendNull();
  else builder.append(value);
}

function appendJson(builder: Utf8Builder, value: unknown): void {
  if (value === null || value === undefined) builder.appendNull();
  else builder.append(JSON.stringify(value));
}

/** Stored events as one table (tests, and rows that must be regrouped into columns). */
export function eventsToTable(rows: readonly StoredEvent[]): Table {
  const buffer = new EventBuffer();
  for (const row of rows) buffer.appendStored(row);
  return buffer.toTable();
}

/** A WAL record's events as they are stored (tests and tools read the WAL this way). */
export function decodeBatchRecord(payload: Uint8Array, separateBody?: Uint8Array): EventBatchRecord {
  const record = readBatchRecord(payload, separateBody);
  const buffer = new EventBuffer();
  buffer.appendRecord(record);
  const { project_id, data_id, environment, received_at } = record.header;
  return { project_id, data_id, environment, received_at, events: buffer.rows === 0 ? [] : tableToEvents(buffer.toTable()) };
}
