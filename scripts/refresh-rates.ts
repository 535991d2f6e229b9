// Refreshes the bundled reference rates (engine/revenue/rates/eurofxref.csv) from the European
// Central Bank's euro foreign exchange reference rates, published around 16:00 CET on TARGET
// working days. Run `bun scripts/refresh-rates.ts` (downloads eurofxref-hist.zip), or give it
// a zip or CSV already downloaded: `bun scripts/refresh-rates.ts --source path/or/url`.
// `--since YYYY-MM-DD` (default 2015-01-01) and `--out path` choose the days kept and the file
// written. A running deployment reads its table once per process: restart it, or point
// REVENUE_RATES_FILE at a file written with `--out` (see docs/revenue-measures.md).
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { bundledSinceDefault, compactRates, csvOfZip, ecbHistoryUrl } from "../engine/revenue/rates-file.ts";
import { bundledRatesFile } from "../engine/revenue/rates.ts";

const zipMagic = [0x50, 0x4b, 0x03, 0x04];

async function sourceBytes(source: string): Promise<Uint8Array> {
  if (!/^https?:\/\//.test(source)) return new Uint8Array(readFileSync(source));
  const response = await fetch(source);
  if (!response.ok) throw new Error(`${source}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

export async function refreshRates(source: string, since: string, out: string): Promise<{ days: number; out: string }> {
  const bytes = await sourceBytes(source);
  const csv = zipMagic.every((byte, index) => bytes[index] === byte) ? csvOfZip(bytes, source) : new TextDecoder().decode(bytes);
  const text = compactRates(csv, since, source);
  // Written whole under a temporary name, then renamed: a reader never sees half a table.
  writeFileSync(`${out}.tmp`, text);
  renameSync(`${out}.tmp`, out);
  return { days: text.split("\n").length - 2, out };
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { source: { type: "string", default: ecbHistoryUrl }, since: { type: "string", default: bundledSinceDefault }, out: { type: "string", default: bundledRatesFile } } });
  const { days, out } = await refreshRates(values.source!, values.since!, values.out!);
  console.log(`wrote ${days} days of ECB reference rates to ${out}`);
}
