// Lists page newest first by id: `limit` (1-200, default 50) and `cursor` (the last id of the
// previous page, given back as `nextCursor`; null on the last page).
import { t } from "elysia";

export const pageSizeMax = 200;
export const pageSizeDefault = 50;

export const PageQuery = t.Object(
  {
    limit: t.Optional(t.Integer({ minimum: 1, maximum: pageSizeMax })),
    cursor: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

/** Reads one more than asked, to know whether another page follows. */
export async function page<T extends { id: string }>(query: { limit?: number; cursor?: string }, load: (limit: number, after: string | null) => Promise<T[]>) {
  const limit = query.limit ?? pageSizeDefault;
  const rows = await load(limit + 1, query.cursor ?? null);
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? items.at(-1)!.id : null };
}
