// GET /groups, GET /groups/types and GET /groups/{index}/{key} (spec 2, Region API; bodies in
// docs/persons.md). Groups belong to the token's project; their properties are masked like
// persons' unless the token holds persons.pii.
import { Elysia } from "elysia";
import { jsonResponse, notFound } from "../http/errors.ts";
import type { GroupRecord } from "../../storage/person-directory.ts";
import { groupTypesPerProjectMax } from "../../storage/person-store.ts";
import type { RegionNode } from "./region-node.ts";
import { badRequest, regionAccess, type RegionTokenCheck } from "./region-access.ts";
import { decodeCursor, pageAt, pageLimit, textParam } from "./paging.ts";
import { propertyView } from "./persons-routes.ts";

const isGroupPosition = (value: unknown): value is { type_index: number; key: string } =>
  typeof value === "object" && value !== null &&
  Number.isSafeInteger((value as { type_index: unknown }).type_index) && typeof (value as { key: unknown }).key === "string";

/** A group type index from the path or query: 0 to 4. */
function typeIndexOf(text: string, what: string): number {
  if (!/^\d$/.test(text) || Number(text) >= groupTypesPerProjectMax) {
    throw badRequest(`${what} must be a group type index from 0 to ${groupTypesPerProjectMax - 1}`);
  }
  return Number(text);
}

export function groupsRoutes(node: RegionNode, check: RegionTokenCheck) {
  const directory = node.store.directory;
  const groupDto = (projectId: string, view: (p: Record<string, unknown>) => Record<string, unknown>) => {
    const names = new Map(directory.groupTypes(projectId).map((type) => [type.index, type.name]));
    return (group: GroupRecord) => ({
      type_index: group.typeIndex,
      type: names.get(group.typeIndex)!,
      key: group.key,
      properties: view(group.properties),
      created_at: new Date(group.createdAt).toISOString(),
    });
  };
  return new Elysia()
    .get("/groups/types", async ({ request }) => {
      const claims = await regionAccess(request, check, "persons:read");
      return jsonResponse(200, { results: directory.groupTypes(claims.projectId) });
    })
    .get("/groups", async ({ request }) => {
      const claims = await regionAccess(request, check, "persons:read");
      const query = new URL(request.url).searchParams;
      const limit = pageLimit(query);
      const cursor = decodeCursor(query, isGroupPosition);
      const typeParam = query.get("type_index");
      const typeIndex = typeParam === null ? null : typeIndexOf(typeParam, "type_index");
      const search = textParam(query, "search") ?? null;
      const after = cursor && { typeIndex: cursor.type_index, key: cursor.key };
      const { groups, next } = directory.listGroups(claims.projectId, typeIndex, search, after, limit);
      const toDto = groupDto(claims.projectId, propertyView(node, claims));
      return jsonResponse(200, pageAt(groups.map(toDto), next && { type_index: next.typeIndex, key: next.key }));
    })
    .get("/groups/:index/:key", async ({ request, params }) => {
      const claims = await regionAccess(request, check, "persons:read");
      const group = directory.group(claims.projectId, typeIndexOf(params.index, "the group type index"), params.key);
      if (!group) throw notFound("group");
      return jsonResponse(200, groupDto(claims.projectId, propertyView(node, claims))(group));
    });
}
