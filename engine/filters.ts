// The 14 filter operators over a decoded column. Every value is compared through its text
// (strings as themselves, numbers as JavaScript writes them, booleans as "true"/"false") or,
// for gt/gte/lt/lte, its number (numbers, and strings that are plain decimal numbers):
//   eq, neq, in, not_in         text equality
//   contains, not_contains      case-insensitive substring of the text
//   regex, not_regex            the pattern found anywhere in the text (case-sensitive)
//   gt, gte, lt, lte            numeric comparison; values without a number never match
//   is_set, is_not_set          the value is present / absent
// The negative operators (neq, not_in, not_contains, not_regex) also match absent values:
// "browser is not Chrome" keeps events that name no browser. The SQL compiler emits the same
// rules (sql/filters-sql.ts); the differential test holds the two together.
import { numberText, textNumber, valueText, type Column } from "./columns.ts";
import type { PropertyFilter } from "./ir/query.ts";

type Scalar = string | number | boolean;

const negativeOperators = new Set(["neq", "not_in", "not_contains", "not_regex", "is_not_set"]);

/** Whether an absent value passes the filter. */
export const absentPasses = (filter: PropertyFilter): boolean => negativeOperators.has(filter.operator);

/** The test a present value's text must pass (true = the row passes). */
function textTest(filter: PropertyFilter): (text: string) => boolean {
  const value = filter.value as Scalar | Scalar[] | undefined;
  switch (filter.operator) {
    case "eq": {
      const wanted = valueText(value as Scalar);
      return (text) => text === wanted;
    }
    case "neq": {
      const unwanted = valueText(value as Scalar);
      return (text) => text !== unwanted;
    }
    case "in": {
      const wanted = new Set((value as Scalar[]).map(valueText));
      return (text) => wanted.has(text);
    }
    case "not_in": {
      const unwanted = new Set((value as Scalar[]).map(valueText));
      return (text) => !unwanted.has(text);
    }
    case "contains": {
      const part = String(value).toLowerCase();
      return (text) => text.toLowerCase().includes(part);
    }
    case "not_contains": {
      const part = String(value).toLowerCase();
      return (text) => !text.toLowerCase().includes(part);
    }
    case "regex": {
      const pattern = new RegExp(String(value));
      return (text) => pattern.test(text);
    }
    case "not_regex": {
      const pattern = new RegExp(String(value));
      return (text) => !pattern.test(text);
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const test = numberTest(filter);
      return (text) => {
        const number = textNumber(text);
        return number !== null && test(number);
      };
    }
    case "is_set":
      return () => true;
    case "is_not_set":
      return () => false;
  }
}

function numberTest(filter: PropertyFilter): (value: number) => boolean {
  const bound = filter.value as number;
  switch (filter.operator) {
    case "gt":
      return (value) => value > bound;
    case "gte":
      return (value) => value >= bound;
    case "lt":
      return (value) => value < bound;
    default:
      return (value) => value <= bound;
  }
}

const isNumberOperator = (filter: PropertyFilter) => ["gt", "gte", "lt", "lte"].includes(filter.operator);

/** 1 for each row of `column` that passes `filter`. */
export function filterMask(column: Column, filter: PropertyFilter): Uint8Array {
  const absent = absentPasses(filter) ? 1 : 0;
  if (column.kind === "text") {
    const test = textTest(filter);
    const passes = Uint8Array.from(column.words, (word) => (test(word) ? 1 : 0));
    const { codes } = column;
    const mask = new Uint8Array(codes.length);
    for (let row = 0; row < codes.length; row++) {
      const code = codes[row]!;
      mask[row] = code < 0 ? absent : passes[code]!;
    }
    return mask;
  }
  const { values, present } = column;
  const mask = new Uint8Array(values.length);
  const test: (value: number) => boolean = isNumberOperator(filter)
    ? numberTest(filter)
    : (() => {
        const onText = textTest(filter);
        return (value: number) => onText(numberText(value));
      })();
  for (let row = 0; row < values.length; row++) mask[row] = present && present[row] === 0 ? absent : test(values[row]!) ? 1 : 0;
  return mask;
}

/** The rows of `selection` whose mask is set. */
export function narrow(selection: Uint32Array, mask: Uint8Array): Uint32Array {
  let kept = 0;
  const out = new Uint32Array(selection.length);
  for (let i = 0; i < selection.length; i++) {
    const row = selection[i]!;
    if (mask[row] === 1) out[kept++] = row;
  }
  return out.subarray(0, kept);
}
