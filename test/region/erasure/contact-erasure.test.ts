// An erasure naming an email address a PostHog app sent as its distinct id: ingest stored the
// events under the address's pseudonym, and the erasure finds and erases them through it; the
// report hashes the address as named and the pseudonym.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, signUp } from "../../helpers/accounts.ts";
import { postIngest } from "../../ingest/helpers.ts";
import { sha256Hex } from "../../../server/crypto.ts";
import { pseudonym } from "../../../server/ingest/pseudonyms.ts";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

test("an erasure by email address erases the person ingest stored under its pseudonym", async () => {
  const owner = await signUp(service, "Contact erasure owner");
  const created = await createProject(owner, "Contacts", "eu");
  const projectId = created.project.id as string;
  const key = created.public_keys[0].key as string;
  const reply = await postIngest(service.url, { api_key: key, batch: [
    { event: "clicked", distinct_id: "Jane.Doe@Example.com", properties: { secret: "jd-secret-value" } },
    { event: "clicked", distinct_id: "keeper", properties: {} },
  ] }, { path: "/i/v0/e/" });
  expect(reply.status).toBe(200);
  const node = service.nodes.get("eu")!;
  const stored = pseudonym(node.store.projectSecrets.pseudonymKey(projectId), "email", "jane.doe@example.com");
  const person = node.store.directory.personOf(projectId, stored)!;
  expect(person).not.toBeNull();
  const report = await service.ctx.regions.get("eu")!.erase({
    erasure_id: "0193a7c2-aaaa-7000-8000-000000000001", project_id: projectId, data_id: node.store.projectDataId(projectId)!,
    environment: "production", person_ids: [], distinct_ids: ["jane.doe@example.com"],
  });
  expect(report.identifier_hashes).toEqual([
    sha256Hex(`${projectId}:distinct_id:jane.doe@example.com`), sha256Hex(`${projectId}:distinct_id:${stored}`), sha256Hex(`${projectId}:person_id:${person.id}`),
  ].sort());
  expect([report.persons_erased, report.removed.persons, report.removed.events_unsealed! + report.removed.events_segments! + report.removed.events_parquet!])
    .toEqual([1, 1, 1]);
  expect(node.store.directory.personOf(projectId, stored)).toBeNull();
  expect(node.store.directory.personOf(projectId, "keeper")).not.toBeNull();
});
