// Writes event tables as Parquet files: `PAR1`, row groups of column chunks
// (column-chunk-writer.ts), the footer (FileMetaData in Thrift's compact protocol), its
// length and `PAR1` again. Every column is OPTIONAL, strings are UTF8 (StringType),
// timestamps INT64 TIMESTAMP(MILLIS, adjusted to UTC), and the Arrow schema is kept under
// `ARROW:schema` (an IPC schema message, base64) so Arrow readers get dictionary strings back
// as dictionaries and the timestamp's zone. Each column chunk carries its Statistics
// (statistics.ts) and column_orders says they are in each type's order, so readers can skip
// row groups; the values each row group holds of `listedValueColumns` are in the key-value
// metadata too (listed-values.ts). Written by hand instead of through parquet-wasm:
// that path copied each table into an IPC stream and wasm memory and cost the storage worker
// more than everything else compaction does (measured in bench/ingest).
import { Table, Type, tableToIPC, type DataType } from "apache-arrow";
import { ByteWriter } from "./byte-writer.ts";
import { ColumnChunkWriter, defaultPageLimits, type ColumnChunkMeta, type PageLimits } from "./column-chunk-writer.ts";
import { CompressionCodec, ConvertedType, LogicalTypeField, PhysicalType, Repetition, TimeUnitField, parquetMagic } from "./parquet-format.ts";
import { ThriftWriter } from "./thrift-compact.ts";
import { listedValueColumns, listedValuesKey } from "./listed-values.ts";

/** Parquet's format version of the footer (data pages v1). */
const formatVersion = 1;
const createdBy = "svc-analytics";
const rootName = "arrow_schema";
const arrowSchemaKey = "ARROW:schema";

/** The Arrow schema as Arrow readers expect it in the footer: the IPC stream's schema message, base64. */
function arrowSchemaText(table: Table): string {
  const stream = tableToIPC(new Table(table.schema), "stream");
  const metadataBytes = new DataView(stream.buffer, stream.byteOffset).getInt32(4, true);
  return Buffer.from(stream.subarray(0, 8 + metadataBytes)).toString("base64");
}

interface WrittenChunk {
  name: string;
  offset: number;
  meta: ColumnChunkMeta;
}

/** The physical type a column of this Arrow type is written as (column-chunk-writer.ts). */
function physicalTypeOf(type: DataType): number {
  switch (type.typeId) {
    case Type.Utf8:
    case Type.Dictionary:
      return PhysicalType.byteArray;
    case Type.Float:
      return PhysicalType.double;
    case Type.Bool:
      return PhysicalType.boolean;
    case Type.Int:
      return PhysicalType.int32;
    case Type.Timestamp:
      return PhysicalType.int64;
    default:
      throw new Error(`Arrow type ${String(type)} is not one event files hold`);
  }
}

function writeSchemaElement(writer: ThriftWriter, name: string, type: DataType): void {
  writer.i32(1, physicalTypeOf(type)).i32(3, Repetition.optional).string(4, name);
  if (type.typeId === Type.Utf8 || type.typeId === Type.Dictionary) {
    writer.i32(6, ConvertedType.utf8).struct(10, (logical) => logical.struct(LogicalTypeField.string, () => {}));
  } else if (type.typeId === Type.Timestamp) {
    writer.i32(6, ConvertedType.timestampMillis).struct(10, (logical) =>
      logical.struct(LogicalTypeField.timestamp, (timestamp) => timestamp.bool(1, true).struct(2, (unit) => unit.struct(TimeUnitField.millis, () => {}))),
    );
  }
}

function writeColumnMeta(writer: ThriftWriter, name: string, meta: ColumnChunkMeta): void {
  writer
    .i32(1, meta.physicalType)
    .i32List(2, meta.encodings)
    .stringList(3, [name])
    .i32(4, CompressionCodec.zstd)
    .i64(5, meta.values)
    .i64(6, meta.uncompressedBytes)
    .i64(7, meta.compressedBytes)
    .i64(9, meta.dataPageOffset);
  if (meta.dictionaryPageOffset !== null) writer.i64(11, meta.dictionaryPageOffset);
  const { nullCount, min, max, minExact, maxExact, nanCount } = meta.statistics;
  writer.struct(12, (statistics) => {
    statistics.i64(3, nullCount);
    if (max) statistics.binary(5, max);
    if (min) statistics.binary(6, min);
    if (max) statistics.bool(7, maxExact);
    if (min) statistics.bool(8, minExact);
    if (nanCount !== null) statistics.i64(9, nanCount);
  });
}

/**
 * A table (each column one Arrow array, of the types event files hold) as a Parquet file of
 * row groups of at most `rowGroupRows` rows.
 */
export function encodeParquetFile(table: Table, rowGroupRows: number, limits: PageLimits = defaultPageLimits): Uint8Array {
  const fields = table.schema.fields;
  const columns = fields.map((field) => {
    const chunks = table.getChild(field.name)!.data;
    if (chunks.length !== 1) throw new Error(`column ${field.name} must be one array (it has ${chunks.length})`);
    return chunks[0]!;
  });
  const rows = table.numRows;
  const file = new ByteWriter(1024 * 1024);
  file.append(parquetMagic);
  const chunkWriter = new ColumnChunkWriter(file, limits);
  const rowGroups: { rows: number; chunks: WrittenChunk[] }[] = [];
  for (let start = 0; start < rows; start += rowGroupRows) {
    const end = Math.min(rows, start + rowGroupRows);
    rowGroups.push({
      rows: end - start,
      chunks: columns.map((data, index) => {
        const name = fields[index]!.name;
        return { name, offset: file.length, meta: chunkWriter.write(data, start, end, listedValueColumns.includes(name)) };
      }),
    });
  }

  const keyValues: [string, string][] = [[arrowSchemaKey, arrowSchemaText(table)]];
  fields.forEach(({ name }, index) => {
    if (listedValueColumns.includes(name)) keyValues.push([listedValuesKey(name), JSON.stringify(rowGroups.map((group) => group.chunks[index]!.meta.listedValues))]);
  });
  const footer = new ThriftWriter(new ByteWriter(4096))
    .i32(1, formatVersion)
    .structList(2, [null, ...fields], (writer, field) => {
      if (field === null) writer.string(4, rootName).i32(5, fields.length);
      else writeSchemaElement(writer, field.name, field.type);
    })
    .i64(3, rows)
    .structList(4, rowGroups, (writer, group) => {
      writer
        .structList(1, group.chunks, (chunk, { name, offset, meta }) => chunk.i64(2, offset).struct(3, (metaWriter) => writeColumnMeta(metaWriter, name, meta)))
        .i64(2, group.chunks.reduce((sum, { meta }) => sum + meta.uncompressedBytes, 0))
        .i64(3, group.rows);
    })
    .structList(5, keyValues, (writer, [key, value]) => writer.string(1, key).string(2, value))
    .string(6, createdBy)
    .structList(7, fields, (writer) => writer.struct(1, () => {}))
    .end();
  file.append(footer);
  file.uint32(footer.byteLength);
  file.append(parquetMagic);
  return file.written();
}
