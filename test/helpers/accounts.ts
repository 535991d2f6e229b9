// Builds the fixtures most tests need, through the public API only.
import { expect } from "bun:test";
import { ConsoleClient, call, bearer, type Reply } from "./client.ts";
import type { TestService } from "./service.ts";

let counter = 0;
export const strongPassword = "violet-harbour-71-quietly";

export interface SignedUpUser {
  client: ConsoleClient;
  email: string;
  userId: string;
  orgId: string;
}

export async function signUp(service: TestService, name = "Test User"): Promise<SignedUpUser> {
  const email = `user${++counter}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const client = new ConsoleClient(service.url);
  const reply = await client.post("/app/auth/signup", { email, name, password: strongPassword });
  expect(reply.status).toBe(201);
  return { client, email, userId: reply.body.user.id, orgId: reply.body.orgs[0].id };
}

export async function createProject(user: SignedUpUser, name = "Web", region = "eu", timezone?: string) {
  const reply = await user.client.post(`/app/orgs/${user.orgId}/projects`, { name, region, ...(timezone === undefined ? {} : { timezone }) });
  expect(reply.status).toBe(201);
  return reply.body as { project: any; public_keys: any[] };
}

export async function createToken(
  user: SignedUpUser,
  scopes: string[],
  extra: { project_ids?: string[]; expires_in_days?: number; org_id?: string } = {},
): Promise<{ secret: string; token: any }> {
  const reply = await user.client.post("/app/tokens", { name: "test token", org_id: user.orgId, scopes, ...extra });
  expect(reply.status).toBe(201);
  return reply.body;
}

/** Invites a fresh user into `owner`'s org with `role` and returns them signed in. */
export async function addMember(service: TestService, owner: SignedUpUser, role: string): Promise<SignedUpUser> {
  const invitee = await signUp(service, `${role} member`);
  const invite = await owner.client.post(`/app/orgs/${owner.orgId}/invitations`, { email: invitee.email, role });
  expect(invite.status).toBe(201);
  const { token } = service.lastMail(invitee.email, "invitation");
  const accepted = await invitee.client.post("/app/invitations/accept", { token });
  expect(accepted.status).toBe(200);
  return { ...invitee, orgId: owner.orgId };
}

export const v1 = (service: TestService, secret: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
  call(service.url, method, path, { body, headers: { ...bearer(secret), ...headers } });

/** A region token for the project through POST /v1/projects/{id}/region-token (200 checked). */
export async function regionTokenFor(service: TestService, secret: string, projectId: string, scopes: string[]): Promise<string> {
  const reply = await v1(service, secret, "POST", `/v1/projects/${projectId}/region-token`, { scopes });
  expect(reply.status).toBe(200);
  return reply.body.token;
}
