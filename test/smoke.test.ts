import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "./helpers/service.ts";
import { addMember, createProject, createToken, signUp, v1 } from "./helpers/accounts.ts";

let service: TestService;
beforeAll(async () => { service = await startTestService(); });
afterAll(async () => { await service.close(); });

test("helpers work end to end", async () => {
  const owner = await signUp(service);
  const { project } = await createProject(owner);
  const viewer = await addMember(service, owner, "viewer");
  const token = await createToken(viewer, ["projects:read"]);
  const reply = await v1(service, token.secret, "GET", `/v1/projects/${project.id}`);
  expect(reply.status).toBe(200);
  expect(reply.body.role).toBe("viewer");
});
