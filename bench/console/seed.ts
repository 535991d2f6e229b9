// The benchmark's service state, made through the public APIs as a person's console would: an
// account, a project, the product dataset sent through ingest, the twelve insights and a
// dashboard holding them.
import { ConsoleClient } from "../../test/helpers/client.ts";
import { productEvents, sendProductEvents } from "../../test/helpers/product-dataset.ts";
import { dashboardInsights, tileLayout } from "./dashboard-insights.ts";

export interface SeededDashboard {
  cookie: { name: string; value: string };
  projectId: string;
  dashboardId: string;
  events: number;
}

export async function seedDashboard(baseUrl: string, events: number, seed: number): Promise<SeededDashboard> {
  const client = new ConsoleClient(baseUrl);
  const me = await client.send<{ orgs: { id: string }[] }>("POST", "/app/auth/signup", { name: "Bench", email: "bench@example.com", password: "violet-harbour-71-quietly" });
  const created = await client.send<{ project: { id: string; region: string }; public_keys: { environment: string; key: string }[] }>(
    "POST",
    `/app/orgs/${me.orgs[0]!.id}/projects`,
    { name: "Acme", region: "eu" },
  );
  const projectId = created.project.id;
  const key = created.public_keys.find(({ environment }) => environment === "production")!.key;
  // About nine events per user over 30 days: enough users that the stream reaches `events`.
  const dataset = productEvents({ seed, users: Math.ceil(events / 6), days: 30, end: new Date(), maxEvents: events });
  const sent = await sendProductEvents(`${baseUrl}/ingest/eu`, key, dataset);
  if (sent.accepted !== events) throw new Error(`the dataset held ${sent.accepted} events, not ${events}: raise its users`);

  const dashboard = await client.send<{ id: string }>("POST", `/app/projects/${projectId}/dashboards`, { name: "Growth" });
  for (const [index, { name, query }] of dashboardInsights.entries()) {
    const insight = await client.send<{ id: string }>("POST", `/app/projects/${projectId}/insights`, { name, query });
    await client.send("POST", `/app/projects/${projectId}/dashboards/${dashboard.id}/tiles`, { kind: "insight", insight_id: insight.id, layout: tileLayout(index) });
  }
  return { cookie: client.sessionCookie(), projectId, dashboardId: dashboard.id, events };
}
