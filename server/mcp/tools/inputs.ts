// Input fields several tools share, each bounded.
import { z } from "zod";
import { listOffsetMax, searchLengthMax } from "../../control/list-params.ts";
import { listPageItemsMax, toolDocumentCharsMax, toolTextCharsMax } from "../mcp-limits.ts";

export const projectId = z.string().min(1).max(toolTextCharsMax).describe("The project's id, from list_projects.");
export const environment = z.string().min(1).max(toolTextCharsMax).optional().describe('The environment (default "production").');
export const resourceId = (what: string) => z.string().min(1).max(toolTextCharsMax).describe(`The ${what}'s id.`);
export const search = z.string().min(1).max(searchLengthMax).optional().describe("Part of the name or description, case-insensitive.");
export const limit = z.number().int().min(1).max(listPageItemsMax).optional().describe(`At most this many (default and most ${listPageItemsMax}).`);
export const offset = z.number().int().min(0).max(listOffsetMax).optional().describe("Skip this many (the previous answer's next_offset).");

/** A JSON object whose text is at most toolDocumentCharsMax characters. */
export const jsonDocument = (description: string) =>
  z.record(z.string(), z.unknown())
    .refine((value) => JSON.stringify(value).length <= toolDocumentCharsMax, { message: `must be at most ${toolDocumentCharsMax} characters of JSON` })
    .describe(description);

/** The console list routes' query parameters, from a tool's arguments. */
export function listQuery(args: { search?: string; limit?: number; offset?: number }): URLSearchParams {
  const query = new URLSearchParams({ limit: String(args.limit ?? listPageItemsMax), offset: String(args.offset ?? 0) });
  if (args.search !== undefined) query.set("search", args.search);
  return query;
}
