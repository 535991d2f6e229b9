// The control plane's side door for flags (split deployment; in one process the region link
// calls the flag store directly): POST /internal/flags takes a publication's snapshot,
// POST /internal/flag-secret-keys the hashes of flag secret keys.
import { Elysia, t } from "elysia";
import { readJsonBody } from "../http/body.ts";
import { validateBody } from "../http/validate.ts";
import type { RegionNode } from "./region-node.ts";

/** A snapshot carries every live flag of an environment; the control plane's 64 KB body limit bounds each flag. */
const internalFlagsBodyBytesMax = 64 * 1024 * 1024;
const internalSecretKeysBodyBytesMax = 1024 * 1024;

const Scalar = t.Union([t.String(), t.Number(), t.Boolean()]);
const SnapshotRequest = t.Object({
  project_id: t.String({ minLength: 1 }),
  data_id: t.Integer({ minimum: 1 }),
  environment: t.String({ minLength: 1 }),
  version: t.Integer({ minimum: 1 }),
  checksum: t.String({ minLength: 1 }),
  flags: t.Array(t.Object({
    id: t.Integer({ minimum: 1 }),
    key: t.String({ minLength: 1 }),
    name: t.String(),
    description: t.Union([t.String(), t.Null()]),
    kind: t.Union([t.Literal("boolean"), t.Literal("multivariate")]),
    enabled: t.Boolean(),
    payload: t.Unknown(),
    rules: t.Array(t.Object({
      properties: t.Array(t.Union([
        t.Object({
          type: t.Union([t.Literal("person"), t.Literal("group")]),
          key: t.String({ minLength: 1 }),
          operator: t.String({ minLength: 1 }),
          value: t.Optional(t.Union([Scalar, t.Array(Scalar)])),
          group_type: t.Optional(t.String({ minLength: 1 })),
        }),
        t.Object({ type: t.Literal("cohort"), cohort_id: t.String({ minLength: 1 }), operator: t.Union([t.Literal("in"), t.Literal("not_in")]) }),
      ])),
      rollout_percentage: t.Union([t.Number({ minimum: 0, maximum: 100 }), t.Null()]),
      variant: t.Union([t.String(), t.Null()]),
    })),
    variants: t.Array(t.Object({ key: t.String({ minLength: 1 }), name: t.Union([t.String(), t.Null()]), rollout_percentage: t.Number({ minimum: 0, maximum: 100 }), payload: t.Unknown() })),
    salt: t.String(),
    stickiness: t.String({ minLength: 1 }),
    version: t.Integer({ minimum: 1 }),
  })),
  cohorts: t.Optional(t.Record(t.String(), t.Unknown())),
});

const SecretKeysRequest = t.Object({
  keys: t.Array(t.Object({
    id: t.String({ minLength: 1 }),
    secretHash: t.String({ pattern: "^[0-9a-f]{64}$" }),
    projectId: t.String({ minLength: 1 }),
    environment: t.String({ minLength: 1 }),
    revokedAt: t.Union([t.String(), t.Null()]),
  })),
});

export function flagInternalRoutes(node: RegionNode, checkSecret: (request: Request) => void) {
  return new Elysia({ name: `region-flags-internal-${node.code}` })
    .post("/internal/flags", async ({ request }) => {
      checkSecret(request);
      node.store.flags.publish(validateBody<typeof SnapshotRequest.static>(SnapshotRequest, await readJsonBody(request, internalFlagsBodyBytesMax)));
      return new Response(null, { status: 204 });
    }, { parse: "none" })
    .post("/internal/flag-secret-keys", async ({ request }) => {
      checkSecret(request);
      node.store.flags.upsertSecretKeys(validateBody<typeof SecretKeysRequest.static>(SecretKeysRequest, await readJsonBody(request, internalSecretKeysBodyBytesMax)).keys);
      return new Response(null, { status: 204 });
    }, { parse: "none" });
}
