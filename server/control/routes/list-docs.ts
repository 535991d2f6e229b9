// The /openapi.json parameters the console's list routes share (their rules: list-params.ts).
import { t } from "elysia";
import type { ParameterDoc } from "../contract/operation.ts";
import { listOffsetMax, listPageSizeDefault, listPageSizeMax, searchLengthMax, tagFiltersMax } from "../list-params.ts";
import { tagLengthMax } from "../tags.ts";

export const pageParameters: ParameterDoc[] = [
  { name: "limit", in: "query", description: `page size (default ${listPageSizeDefault})`, schema: t.Integer({ minimum: 1, maximum: listPageSizeMax }) },
  { name: "offset", in: "query", description: "where the page starts; answers give next_offset", schema: t.Integer({ minimum: 0, maximum: listOffsetMax }) },
];

export const listParameters = (searched: string): ParameterDoc[] => [
  { name: "search", in: "query", description: `case-insensitive text in the ${searched}`, schema: t.String({ minLength: 1, maxLength: searchLengthMax }) },
  { name: "tag", in: "query", description: `repeatable (at most ${tagFiltersMax}): only those carrying every tag`, schema: t.String({ minLength: 1, maxLength: tagLengthMax }) },
  ...pageParameters,
];
