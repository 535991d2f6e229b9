// The region's copy of each project's findings configuration when the region misses pushes: a
// region that was down catches up on the retry (syncPendingFindings, as the periodic retry and
// start-up run it), including changes, deletions and a project deleted meanwhile; a project's
// deletion removes its configuration; a restart hands each region its whole set again, removing
// what it should no longer hold. The region is real; its link is wrapped to fail while "down".
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { syncPendingFindings } from "../../../server/control/findings/findings-sync.ts";
import type { RegionCode } from "../../../server/config.ts";
import type { RegionLink } from "../../../server/region/region-link.ts";
import { destinationsPath, regionConfig, regionDestination, regionProject, regionRule, rulesPath, slackUrl } from "./fixture.ts";

let service: TestService;
let owner: SignedUpUser;

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Owner");
});
afterAll(() => service.close());

/** Runs `work` while every findings push to the region fails, then restores the link. */
async function whileRegionDown(work: () => Promise<void>): Promise<void> {
  const links = service.ctx.regions as Map<RegionCode, RegionLink>;
  const real = links.get("eu")!;
  const refuse = async () => { throw new Error("region eu is down (test)"); };
  links.set("eu", Object.assign(Object.create(real), { putFindingsConfig: refuse, deleteFindingsConfig: refuse, testFindingsDestination: refuse }));
  try {
    await work();
  } finally {
    links.set("eu", real);
  }
}

const expectedConfig = async (project: any) => {
  const destinations = (await owner.client.get(destinationsPath(project.id))).body.destinations;
  const rules = (await owner.client.get(rulesPath(project.id))).body.rules;
  return { ...regionProject(service, project), destinations: destinations.map((dto: any) => regionDestination(dto, dto.has_secret ? slackUrl : null, null)), rules: rules.map(regionRule), metrics: [] };
};

test("a region that was down catches up on the retry: changes, deletions and a deleted project", async () => {
  const { project: kept } = await createProject(owner, "Kept", "eu");
  const { project: emptied } = await createProject(owner, "Emptied", "eu");
  const { project: doomed } = await createProject(owner, "Doomed", "eu");
  const keptDestination = (await owner.client.post(destinationsPath(kept.id), { kind: "slack", name: "Kept", secret: slackUrl })).body;
  const emptiedRule = (await owner.client.post(rulesPath(emptied.id), { name: "Emptied", target: { kind: "ingestion_warnings" } })).body;
  await owner.client.post(destinationsPath(doomed.id), { kind: "slack", name: "Doomed", secret: slackUrl });
  const before = regionConfig(service, kept.id);
  expect(before).toEqual(await expectedConfig(kept));

  await whileRegionDown(async () => {
    // The changes are committed and answered as usual; the region keeps its old copy.
    const renamed = await owner.client.patch(`${destinationsPath(kept.id)}/${keptDestination.id}`, { name: "Renamed" });
    expect([renamed.status, renamed.body.name]).toEqual([200, "Renamed"]);
    const rule = await owner.client.post(rulesPath(kept.id), { name: "New", target: { kind: "event_volume", event: "signup" }, destination_ids: [keptDestination.id] });
    expect(rule.status).toBe(201);
    expect((await owner.client.delete(`${rulesPath(emptied.id)}/${emptiedRule.id}`)).status).toBe(204);
    expect((await owner.client.delete(`/app/projects/${doomed.id}`)).status).toBe(204);
    expect(regionConfig(service, kept.id)).toEqual(before);
    expect(regionConfig(service, emptied.id)).not.toBeNull();
    expect(regionConfig(service, doomed.id)).not.toBeNull();
    // The retry while still down changes nothing (and loses nothing).
    await syncPendingFindings(service.ctx);
    expect(regionConfig(service, kept.id)).toEqual(before);
  });

  await syncPendingFindings(service.ctx);
  expect(regionConfig(service, kept.id)).toEqual(await expectedConfig(kept));
  expect(regionConfig(service, kept.id)!.rules).toHaveLength(1);
  expect(regionConfig(service, emptied.id)).toBeNull();
  expect(regionConfig(service, doomed.id)).toBeNull();
});

test("a project's deletion removes its findings configuration from the region at once", async () => {
  const { project } = await createProject(owner, "Deleted", "eu");
  await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "D", secret: slackUrl });
  expect(regionConfig(service, project.id)).not.toBeNull();
  expect((await owner.client.delete(`/app/projects/${project.id}`)).status).toBe(204);
  expect(regionConfig(service, project.id)).toBeNull();
});

test("the test send answers 503 when the region cannot be reached", async () => {
  const { project } = await createProject(owner, "Unreachable", "eu");
  const destination = (await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "D", secret: slackUrl })).body;
  await whileRegionDown(async () => {
    const reply = await owner.client.post(`${destinationsPath(project.id)}/${destination.id}/test`);
    expect([reply.status, reply.body]).toEqual([503, { error: { code: "unavailable", message: "region eu cannot be reached" } }]);
  });
  await syncPendingFindings(service.ctx);
});

test("after a restart each region gets its whole set: what it should no longer hold goes", async () => {
  const { project } = await createProject(owner, "Restarted", "eu");
  await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "R", secret: slackUrl });
  const expected = await expectedConfig(project);
  // A configuration the control plane does not know (a removal the region missed before a restart).
  const stray = { ...expected, projectId: crypto.randomUUID() };
  service.nodes.get("eu")!.store.findingsConfig.upsert([stray]);
  service = await service.restart();
  expect(regionConfig(service, stray.projectId)).toBeNull();
  expect(regionConfig(service, project.id)).toEqual({ ...expected, consoleUrl: `${service.url}/projects/${project.id}` });
});
