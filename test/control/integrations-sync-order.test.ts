// A region's integration pushes land in order: a whole-set push (the reconcile after a failed
// push, or at start-up) that read the rows before a rotation cannot land after the rotation's own
// push and bring the old token back. The region is real; its link is wrapped so the test can
// hold the whole-set push in flight while the rotation happens.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, signUp, v1 } from "../helpers/accounts.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { integrations } from "../../server/control/db/schema.ts";
import { syncPendingIntegrations } from "../../server/control/integrations/integration-sync.ts";
import type { RegionCode } from "../../server/config.ts";
import type { RegionLink } from "../../server/region/region-link.ts";

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
});
afterAll(() => service.close());

function regionToken(id: string): string | null {
  const db = new Database(join(service.dataDir, "eu", "region.sqlite"), { readonly: true });
  try {
    return (db.query("SELECT token FROM revenue_integrations WHERE id = ?").get(id) as { token: string } | null)?.token ?? null;
  } finally {
    db.close();
  }
}

test("a rotation during a whole-set push reaches the region after it: the new token holds", async () => {
  const owner = await signUp(service, "Owner");
  const { project } = await createProject(owner, "Shop", "eu");
  const pat = (await createToken(owner, ["projects:write"])).secret;
  const base = `/v1/projects/${project.id}/integrations`;
  const created = await v1(service, pat, "POST", base, { provider: "revenuecat", secret: "Bearer rc-order" });
  expect(created.status).toBe(201);
  const oldToken = created.body.webhook_url.split("/").at(-1);
  expect(regionToken(created.body.id)).toBe(oldToken);

  // Hold the region's whole-set pushes until released.
  const links = service.ctx.regions as Map<RegionCode, RegionLink>;
  const real = links.get("eu")!;
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let wholeSetsStarted = 0;
  links.set("eu", Object.assign(Object.create(real), {
    putIntegrations: async (entries: Parameters<RegionLink["putIntegrations"]>[0], replace: boolean) => {
      if (replace) {
        wholeSetsStarted += 1;
        await released;
      }
      return real.putIntegrations(entries, replace);
    },
  }));
  try {
    // A whole-set push starts (as after a failed push) with the rows as they are now.
    service.ctx.db.update(integrations).set({ regionSynced: false }).where(eq(integrations.id, created.body.id)).run();
    const reconcile = syncPendingIntegrations(service.ctx);
    await waitFor(() => wholeSetsStarted === 1, 10_000, "the whole-set push to start");

    // The rotation commits while that push is in flight; its own push waits its turn.
    const rotation = v1(service, pat, "POST", `${base}/${created.body.id}/rotate-token`);
    await waitFor(() => service.ctx.db.select().from(integrations).where(eq(integrations.id, created.body.id)).get()!.token !== oldToken, 10_000, "the rotation to commit");
    release();
    await reconcile;
    const rotated = await rotation;
    expect(rotated.status).toBe(200);
    const newToken = rotated.body.webhook_url.split("/").at(-1);
    expect([newToken === oldToken, regionToken(created.body.id)]).toEqual([false, newToken]);
    expect(rotated.body.region_synced).toBe(true);
  } finally {
    links.set("eu", real);
  }
});
