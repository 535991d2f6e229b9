// Prepares a running service for the benchmark through its public APIs only: an account, a
// project, one event that makes the "company" group type exist, the generated flags created
// and enabled in production, then waits until the region serves all of them.
import type { GeneratedFlag } from "./flag-set.ts";

/** How long the control plane may take to publish the last snapshot to the region. */
const publishTimeoutMs = 30_000;
const pollIntervalMs = 50;
const jsonHeaders = { "content-type": "application/json" };

async function call(url: string, method: string, body: unknown, cookie?: string): Promise<any> {
  const response = await fetch(url, { method, headers: cookie ? { ...jsonHeaders, cookie } : jsonHeaders, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return text === "" ? undefined : JSON.parse(text);
}

export interface PreparedService {
  /** The production public key, sent as `token`. */
  token: string;
  /** `POST` here with PostHog's body: `/ingest/eu/flags/?v=2`. */
  flagsUrl: string;
}

export async function prepareService(serviceUrl: string, flags: GeneratedFlag[], probeBody: (token: string) => string): Promise<PreparedService> {
  const signup = await fetch(`${serviceUrl}/app/auth/signup`, {
    method: "POST",
    headers: jsonHeaders,
    body: JSON.stringify({ email: "flags-bench@example.com", name: "Bench", password: "violet-harbour-71-quietly" }),
  });
  if (signup.status !== 201 && signup.status !== 200) throw new Error(`signup answered ${signup.status}: ${await signup.text()}`);
  const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
  const orgId = ((await call(`${serviceUrl}/app/orgs`, "GET", undefined, cookie)) as { orgs: { id: string }[] }).orgs[0]!.id;
  const created = (await call(`${serviceUrl}/app/orgs/${orgId}/projects`, "POST", { name: "Flags bench", region: "eu" }, cookie)) as {
    project: { id: string };
    public_keys: { environment: string; key: string }[];
  };
  const projectId = created.project.id;
  const token = created.public_keys.find((key) => key.environment === "production")!.key;

  // Group types come into being with the first event that names one.
  await call(`${serviceUrl}/ingest/eu/batch`, "POST", {
    api_key: token,
    batch: [{
      uuid: Bun.randomUUIDv7(),
      event: "company_seen",
      timestamp: new Date().toISOString(),
      distinct_id: "person-0",
      properties: {},
      lib: { name: "flags-bench", version: "1.0.0" },
      groups: { company: "company-0" },
    }],
  });

  for (const flag of flags) {
    const dto = (await call(`${serviceUrl}/app/projects/${projectId}/flags`, "POST", flag.create, cookie)) as { id: string };
    if (flag.enabled) await call(`${serviceUrl}/app/projects/${projectId}/flags/${dto.id}/environments/production`, "PATCH", { enabled: true }, cookie);
  }

  const flagsUrl = `${serviceUrl}/ingest/eu/flags/?v=2`;
  await waitUntilServed(flagsUrl, probeBody(token), flags);
  return { token, flagsUrl };
}

/** Publication is asynchronous: poll until every flag is answered, the enabled ones as enabled and the group type known. */
async function waitUntilServed(flagsUrl: string, body: string, flags: GeneratedFlag[]): Promise<void> {
  const disabled = flags.filter((flag) => !flag.enabled).length;
  const deadline = performance.now() + publishTimeoutMs;
  let last = "";
  while (performance.now() < deadline) {
    const answer = (await call(flagsUrl, "POST", JSON.parse(body))) as { flags: Record<string, { reason: { code: string } }> };
    const reasons = Object.values(answer.flags).map((flag) => flag.reason.code);
    last = JSON.stringify(reasons);
    const ready = reasons.length === flags.length && reasons.filter((code) => code === "flag_disabled").length === disabled && !reasons.includes("no_group_type");
    if (ready) return;
    await Bun.sleep(pollIntervalMs);
  }
  throw new Error(`the region did not serve the ${flags.length} flags within ${publishTimeoutMs} ms; last reasons: ${last}`);
}
