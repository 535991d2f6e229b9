// Bounds on what one answer may hold, so no query can build or send an answer of hundreds of
// megabytes (20 series x 1,000 breakdown values x a year of hours made a 402 MB body and took
// the process past 5 GB). Cells are checked before the executor allocates them, with the
// dimensions to narrow named; the JSON text is checked before it is built, from a walk that
// cannot undercount it, then exactly.
import { QueryLimitError } from "./query-data.ts";

/** Values an answer holds at most (trends: series x breakdown values x intervals; retention: cohorts x periods; revenue: currencies x intervals). */
export const answerCellsMax = 1_000_000;
/** Bytes of an answer's JSON at most (labels and paths are data: a few long values can be megabytes each). */
export const answerBytesMax = 32 * 1024 * 1024;

export interface AnswerDimension {
  count: number;
  /** What one unit of the dimension is, plural: "series", "hour intervals". */
  name: string;
}

/** Throws query_too_large when the product of `dimensions` passes `cellsMax`, saying what to narrow. */
export function checkAnswerCells(dimensions: AnswerDimension[], cellsMax: number, narrow: string): void {
  const cells = dimensions.reduce((product, dimension) => product * dimension.count, 1);
  if (cells <= cellsMax) return;
  const spelled = dimensions.map((dimension) => `${dimension.count} ${dimension.name}`).join(" x ");
  throw new QueryLimitError("query_too_large", `the answer would hold ${spelled} = ${cells} values; at most ${cellsMax} (${narrow})`);
}

/**
 * A lower bound of the length of `value`'s JSON text, or Infinity once it passes `max`: every
 * string counts its characters and quotes, every other value one character (escapes and digits
 * only add), so a value it passes cannot fit.
 */
function jsonLengthLowerBound(value: unknown, max: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") total += item.length + 2;
    else if (Array.isArray(item)) {
      total += 1 + item.length;
      for (const element of item) stack.push(element);
    } else if (item !== null && typeof item === "object") {
      for (const [key, member] of Object.entries(item)) {
        if (member === undefined) continue;
        total += key.length + 4;
        stack.push(member);
      }
    } else total += 1;
    if (total > max) return Infinity;
  }
  return total;
}

/** `answer` as JSON, or query_too_large when the text would pass `bytesMax` bytes (UTF-8). */
export function answerJson(answer: unknown, bytesMax: number, narrow: string): string {
  const tooLarge = () => new QueryLimitError("query_too_large", `the answer would take more than ${bytesMax} bytes of JSON; ${narrow}`);
  if (jsonLengthLowerBound(answer, bytesMax) > bytesMax) throw tooLarge();
  const json = JSON.stringify(answer);
  if (Buffer.byteLength(json) > bytesMax) throw tooLarge();
  return json;
}
