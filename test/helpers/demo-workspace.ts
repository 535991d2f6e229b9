// A realistic workspace made through the public APIs, as a team would have it after a month:
// an organisation with a second member and a pending invitation, a project with a month of
// product events (test/helpers/product-dataset.ts), saved insights of every kind on a dashboard
// with a note, an annotation, flags (one gated by a cohort, one multivariate with payloads), an
// experiment on it, calculated cohorts, a personal access token and a synced tracking plan.
// The console's screenshots (scripts/console-screenshots.ts) are taken over it.
import { dashboardInsights, tileLayout } from "../../bench/console/dashboard-insights.ts";
import { ConsoleClient } from "./client.ts";
import { productEvents, sendProductEvents } from "./product-dataset.ts";

export const demoPassword = "violet-harbour-71-quietly";
export const demoOwner = { name: "Ava Khan", email: "ava@acme.example" };

export interface DemoWorkspace {
  owner: ConsoleClient;
  orgId: string;
  projectId: string;
  dashboardId: string;
  insightIds: string[];
  flagIds: { checkout: string; darkMode: string };
  experimentId: string;
  cohortIds: string[];
  /** A person of the dataset who signed up (has merges, properties and events). */
  personDistinctId: string;
}

const dashboardTiles = 8;

async function signUp(baseUrl: string, name: string, email: string): Promise<{ client: ConsoleClient; orgId: string }> {
  const client = new ConsoleClient(baseUrl);
  const me = await client.send<{ orgs: { id: string }[] }>("POST", "/app/auth/signup", { name, email, password: demoPassword });
  return { client, orgId: me.orgs[0]!.id };
}

/** `invitationToken` reads the token of the invitation mailed to an address (from the service's outbox). */
export async function seedDemoWorkspace(baseUrl: string, invitationToken: (email: string) => string, users = 1_500): Promise<DemoWorkspace> {
  const { client: owner, orgId } = await signUp(baseUrl, demoOwner.name, demoOwner.email);
  await owner.send("PATCH", `/app/orgs/${orgId}`, { name: "Acme Inc" });
  const created = await owner.send<{ project: { id: string }; public_keys: { environment: string; key: string }[] }>("POST", `/app/orgs/${orgId}/projects`, {
    name: "Acme Web",
    region: "eu",
    timezone: "Europe/London",
    currency: "GBP",
  });
  const projectId = created.project.id;
  const app = `/app/projects/${projectId}`;
  const key = created.public_keys.find(({ environment }) => environment === "production")!.key;
  const events = [...productEvents({ seed: 7, users, days: 30, end: new Date() })];
  await sendProductEvents(`${baseUrl}/ingest/eu`, key, events);
  // A customer: identified, merged from an anonymous device, with a purchase and properties.
  const personDistinctId = events.find(({ event }) => event === "purchase_completed")!.distinct_id;

  const insightIds: string[] = [];
  for (const { name, query } of dashboardInsights) insightIds.push((await owner.send<{ id: string }>("POST", `${app}/insights`, { name, query })).id);
  const dashboard = await owner.send<{ id: string }>("POST", `${app}/dashboards`, {
    name: "Growth",
    description: "The numbers the team reviews every Monday.",
    is_home: true,
    tags: ["weekly"],
  });
  for (const [index, insightId] of insightIds.slice(0, dashboardTiles).entries()) {
    await owner.send("POST", `${app}/dashboards/${dashboard.id}/tiles`, { kind: "insight", insight_id: insightId, layout: tileLayout(index) });
  }
  await owner.send("POST", `${app}/dashboards/${dashboard.id}/tiles`, {
    kind: "text",
    body: "Weekly review\nSign-ups come mostly from search. The pricing page redesign shipped on the 14th.",
    layout: { x: 0, y: (dashboardTiles / 2) * 5, w: 12, h: 2 },
  });
  await owner.send("POST", `${app}/annotations`, { content: "Pricing page redesign shipped", kind: "release", occurred_at: new Date(Date.now() - 13 * 86_400_000).toISOString() });

  const cohortIds: string[] = [];
  for (const [name, definition] of [
    ["Paying customers", { type: "and", values: [{ type: "performed", event: "purchase_completed", count_operator: "gte", count: 1, days: 30 }] }],
    ["Power users", { type: "and", values: [{ type: "performed", event: "created_insight", count_operator: "gte", count: 5, days: 30 }] }],
  ] as const) {
    const cohort = await owner.send<{ id: string }>("POST", `${app}/cohorts`, { kind: "dynamic", name, definition });
    await owner.send("POST", `${app}/cohorts/${cohort.id}/calculate`, { environment: "production" });
    cohortIds.push(cohort.id);
  }

  const checkout = await owner.send<{ id: string }>("POST", `${app}/flags`, {
    key: "new-checkout",
    name: "New checkout",
    description: "The one-page checkout with saved cards.",
    kind: "multivariate",
    variants: [
      { key: "control", rollout_percentage: 50 },
      { key: "one-page", rollout_percentage: 50, payload: { steps: 1 } },
    ],
    tags: ["checkout"],
  });
  await owner.send("PATCH", `${app}/flags/${checkout.id}/environments/production`, { enabled: true });
  const darkMode = await owner.send<{ id: string }>("POST", `${app}/flags`, { key: "dark-mode", name: "Dark mode", payload: { default: "system" } });
  await owner.send("PATCH", `${app}/flags/${darkMode.id}/environments/production`, {
    enabled: true,
    rules: [{ properties: [{ type: "cohort", cohort_id: cohortIds[1] }], rollout_percentage: 100 }, { properties: [], rollout_percentage: 30 }],
  });
  const purchase = await owner.send<{ id: string }>("POST", `${app}/metrics`, { key: "purchase", name: "Purchase", query: { kind: "proportion", event: "purchase_completed" } });
  const experiment = await owner.send<{ id: string }>("POST", `${app}/experiments`, {
    flag_id: checkout.id,
    key: "one-page-checkout",
    name: "One-page checkout",
    hypothesis: "A single checkout page raises purchases by 10%.",
    primary_metric_id: purchase.id,
  });

  const { client: member } = await signUp(baseUrl, "Noah Smith", "noah@acme.example");
  await owner.send("POST", `/app/orgs/${orgId}/invitations`, { email: "noah@acme.example", role: "member" });
  await member.send("POST", "/app/invitations/accept", { token: invitationToken("noah@acme.example") });
  await owner.send("POST", `/app/orgs/${orgId}/invitations`, { email: "mia@acme.example", role: "viewer" });
  await owner.send("POST", "/app/tokens", { name: "Nightly export", org_id: orgId, scopes: ["query:read"], expires_in_days: 90 });

  return {
    owner,
    orgId,
    projectId,
    dashboardId: dashboard.id,
    insightIds,
    flagIds: { checkout: checkout.id, darkMode: darkMode.id },
    experimentId: experiment.id,
    cohortIds,
    personDistinctId,
  };
}
