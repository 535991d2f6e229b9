// Tool answers are bounded for a model's context: long lists are cut to their first items,
// long strings to their first characters, and the answer says what was cut (as data, in its
// `limits_applied` member) so the model can narrow the request instead of guessing.
import { resultDepthMax, resultItemsMax, resultStringCharsMax, resultTextCharsMax } from "./mcp-limits.ts";

export interface CutList {
  /** JSON Pointer of the list in the answer. */
  path: string;
  shown: number;
  total: number;
}

export interface LimitsApplied {
  lists_cut: CutList[];
  strings_cut: number;
  /** Values nested deeper than the answer keeps, replaced by null. */
  values_too_deep: number;
  note: string;
}

/** Lists named in `limits_applied` at most: the count of the others is still in the note. */
const cutListsNamedMax = 20;

class Cutter {
  readonly lists: CutList[] = [];
  strings = 0;
  tooDeep = 0;

  constructor(private readonly itemsMax: number) {}

  cut(value: unknown, path: string, depth: number): unknown {
    if (typeof value === "string") {
      if (value.length <= resultStringCharsMax) return value;
      this.strings++;
      return `${value.slice(0, resultStringCharsMax)}…`;
    }
    if (value === null || typeof value !== "object") return value;
    if (depth >= resultDepthMax) {
      this.tooDeep++;
      return null;
    }
    if (Array.isArray(value)) {
      if (value.length > this.itemsMax) this.lists.push({ path, shown: this.itemsMax, total: value.length });
      return value.slice(0, this.itemsMax).map((item, index) => this.cut(item, `${path}/${index}`, depth + 1));
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = this.cut(item, `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, depth + 1);
    return out;
  }

  limits(): LimitsApplied | null {
    if (this.lists.length === 0 && this.strings === 0 && this.tooDeep === 0) return null;
    const parts = [
      this.lists.length ? `${this.lists.length} list(s) cut to their first ${this.itemsMax} items` : "",
      this.strings ? `${this.strings} string(s) cut to ${resultStringCharsMax} characters` : "",
      this.tooDeep ? `${this.tooDeep} value(s) nested deeper than ${resultDepthMax} levels left out` : "",
    ].filter(Boolean);
    return {
      lists_cut: this.lists.slice(0, cutListsNamedMax),
      strings_cut: this.strings,
      values_too_deep: this.tooDeep,
      note: `The answer was shortened: ${parts.join("; ")}. Narrow the request (filters, a shorter date range, LIMIT) to see the rest.`,
    };
  }
}

/** Item caps tried in turn until the answer's JSON fits resultTextCharsMax. */
const itemCaps = [resultItemsMax, 50, 20, 10, 5, 1];

/**
 * `answer` as JSON text within the limits: its lists, strings and nesting cut as needed, with a
 * `limits_applied` member added when anything was cut.
 */
export function boundedJson(answer: Record<string, unknown>): string {
  for (const cap of itemCaps) {
    const cutter = new Cutter(cap);
    const cut = cutter.cut(answer, "", 0) as Record<string, unknown>;
    const limits = cutter.limits();
    const text = JSON.stringify(limits ? { ...cut, limits_applied: limits } : cut);
    if (text.length <= resultTextCharsMax) return text;
  }
  return JSON.stringify({
    limits_applied: {
      lists_cut: [], strings_cut: 0, values_too_deep: 0,
      note: `The answer is larger than ${resultTextCharsMax} characters even with every list cut to one item. Narrow the request.`,
    },
  });
}
