// A person signed up in a console tab with a project of their own, made through the same APIs
// the console calls (so the tab's cookies are the session), and the project's region API as
// the console reaches it: with a region token issued to that session.
import { expect } from "bun:test";
import type { BrowserContext } from "playwright-core";
import { strongPassword } from "./accounts.ts";
import { bearer, call, type Reply } from "./client.ts";
import type { TestService } from "./service.ts";

export interface ConsoleProject {
  id: string;
  orgId: string;
  /** The production environment's public key. */
  key: string;
  /** Calls `/region/{region}{path}` with a region token of the tab's session (production unless told). */
  region(method: string, path: string, body?: unknown, environment?: string): Promise<Reply>;
}

export async function signUpInContext(service: TestService, context: BrowserContext, email: string, name: string): Promise<string> {
  const signedUp = await context.request.post(`${service.url}/app/auth/signup`, { data: { email, name, password: strongPassword } });
  expect(signedUp.status()).toBe(201);
  return (await signedUp.json()).orgs[0].id;
}

export async function logInContext(service: TestService, context: BrowserContext, email: string): Promise<void> {
  const loggedIn = await context.request.post(`${service.url}/app/auth/login`, { data: { email, password: strongPassword } });
  expect(loggedIn.status()).toBe(200);
}

/** A region caller for `projectId` with the tab's session (its role decides the token's scopes). */
export function regionCaller(service: TestService, context: BrowserContext, projectId: string, regionCode = "eu"): ConsoleProject["region"] {
  return async (method, path, body, environment = "production") => {
    const issued = await context.request.post(`${service.url}/app/projects/${projectId}/region-token`, { data: { environment } });
    expect(issued.status()).toBe(200);
    const { token } = await issued.json();
    return call(service.url, method, `/region/${regionCode}${path}`, { headers: bearer(token), body });
  };
}

export async function createConsoleProject(service: TestService, context: BrowserContext, orgId: string, input: { name: string; timezone?: string }): Promise<ConsoleProject> {
  const created = await context.request.post(`${service.url}/app/orgs/${orgId}/projects`, { data: { region: "eu", ...input } });
  expect(created.status()).toBe(201);
  const { project, public_keys: keys } = await created.json();
  const key = keys.find((candidate: { environment: string }) => candidate.environment === "production").key;
  return { id: project.id, orgId, key, region: regionCaller(service, context, project.id) };
}
