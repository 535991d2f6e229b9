// What the Ask tests share: a fake chat-completions model, the service pointed at it, an owner
// with a project holding a few events, region tokens with chosen scopes, and the calls.
import { expect } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createToken, regionTokenFor, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { bearer, call, isoPattern, uuidPattern, type Reply } from "../../helpers/client.ts";
import { startFakeChatModel, type FakeChatModel } from "../../helpers/fake-chat-model.ts";
import { nativeEvent, rfc3339, sendAccepted, type NativeEvent } from "../../ingest/helpers.ts";

export const testModel = "test-model";
export const testApiKey = "sk-test-secret-4b1d";

export interface AskFixture {
  service: TestService;
  model: FakeChatModel;
  owner: SignedUpUser;
  patSecret: string;
  projectId: string;
  projectKey: string;
  tokenFor(scopes: string[], projectId?: string): Promise<string>;
  close(): Promise<void>;
}

/** Two days ago at 10:00 UTC plus `minutes`. */
export const at = (minutes: number) => Date.parse(`${new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10)}T10:00:00Z`) + minutes * 60_000;

export const event = (name: string, distinctId: string, minutes: number, properties: Record<string, unknown>): NativeEvent =>
  nativeEvent({ event: name, distinct_id: distinctId, timestamp: rfc3339(at(minutes)), properties });

export async function createProjectWithKey(owner: SignedUpUser, name: string): Promise<{ projectId: string; key: string }> {
  const created = await owner.client.post(`/app/orgs/${owner.orgId}/projects`, { name, region: "eu", timezone: "UTC" });
  expect(created.status).toBe(201);
  const key = created.body.public_keys.find((entry: { environment: string }) => entry.environment === "production").key;
  return { projectId: created.body.project.id, key };
}

export async function startAskFixture(env: Record<string, string> = {}): Promise<AskFixture> {
  const model = await startFakeChatModel();
  const service = await startTestService({ ASK_BASE_URL: model.url, ASK_MODEL: testModel, ASK_API_KEY: testApiKey, ...env });
  const owner = await signUp(service, "Ask owner");
  const patSecret = (await createToken(owner, ["query:read", "sql.raw", "ai:read"])).secret;
  const { projectId, key } = await createProjectWithKey(owner, "Ask");
  await sendAccepted(service.url, key, [
    event("page_viewed", "u1", 0, { plan: "pro" }),
    event("page_viewed", "u1", 5, { plan: "free" }),
    event("page_viewed", "u2", 10, { plan: "pro" }),
    event("signed_up", "u2", 15, { plan: "pro" }),
  ]);
  return {
    service, model, owner, patSecret, projectId, projectKey: key,
    tokenFor: (scopes, project = projectId) => regionTokenFor(service, patSecret, project, scopes),
    async close() {
      await service.close();
      await model.close();
    },
  };
}

export const ask = (fixture: AskFixture, token: string, body: unknown): Promise<Reply> =>
  call(fixture.service.url, "POST", "/region/eu/ask", { body, headers: bearer(token) });

export const regionGet = (fixture: AskFixture, token: string, path: string): Promise<Reply> =>
  call(fixture.service.url, "GET", `/region/eu${path}`, { headers: bearer(token) });

export const regionPost = (fixture: AskFixture, token: string, path: string, body: unknown): Promise<Reply> =>
  call(fixture.service.url, "POST", `/region/eu${path}`, { body, headers: bearer(token) });

/** A Query IR the tests ask the fake model to run. */
export const pageViewsIr = {
  ir_version: 1,
  date_range: { from: "-7d" },
  insight: { kind: "trends", interval: "day", series: [{ event: "page_viewed", math: "total" }] },
};

export const anId = expect.stringMatching(uuidPattern);
export const aTime = expect.stringMatching(isoPattern);

/** The messages of a recorded model request by role. */
export const messagesOf = (body: any, role: string): any[] => (body.messages as any[]).filter((message) => message.role === role);
export const toolNamesOf = (body: any): string[] => (body.tools ?? []).map((tool: any) => tool.function.name);
