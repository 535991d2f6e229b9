// Tags on insights and dashboards: free text a team files things under. Stored trimmed and
// without repeats (first spelling kept), in the order given, so a list filter can match them exactly.
import { t } from "elysia";

export const tagsPerResourceMax = 20;
export const tagLengthMax = 50;

export const Tags = t.Array(t.String({ minLength: 1, maxLength: tagLengthMax, pattern: "\\S" }), {
  maxItems: tagsPerResourceMax,
  description: `at most ${tagsPerResourceMax} tags of 1-${tagLengthMax} characters; trimmed, repeats dropped`,
});

export function normalizeTags(tags: string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const tag of tags) {
    const trimmed = tag.trim();
    if (seen.has(trimmed)) continue;
    seen.add(trimmed);
    kept.push(trimmed);
  }
  return kept;
}
