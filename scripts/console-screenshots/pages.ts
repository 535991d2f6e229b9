// The console pages the screenshots show, in the order docs/console/README.md lists them,
// each with what to wait for before the picture is taken (the page's data, not a spinner).
import type { Page } from "playwright-core";
import type { PageDocument } from "../../test/helpers/console-browser.ts";
import type { DemoWorkspace } from "../../test/helpers/demo-workspace.ts";

export interface ConsoleShot {
  /** The PNG's name (without extension). */
  name: string;
  /** What the picture shows, for docs/console/README.md. */
  title: string;
  path: string;
  /** Also taken in the dark theme (`{name}-dark.png`). */
  dark?: boolean;
  /** What a person does on the page before the picture (open a row, run a query). */
  act?(page: Page): Promise<void>;
}

/** Charts draw in the frame after their data arrives (the screenshots ask for reduced motion: no animation). */
const chartSettleMs = 500;

/** The page has its heading and nothing still loading (no loading state, no tile waiting for its answer). */
export async function settled(page: Page): Promise<void> {
  await page.waitForSelector("h1");
  // A function, not a string: the console's CSP refuses the eval a string would need.
  await page.waitForFunction(() => !(globalThis as unknown as { document: PageDocument }).document.querySelector(".state[role=status], [data-tile-state=loading], [aria-busy=true]"));
  if (await page.locator("canvas").count()) await page.waitForTimeout(chartSettleMs);
}

export function consolePages(workspace: DemoWorkspace): ConsoleShot[] {
  const project = `/projects/${workspace.projectId}`;
  return [
    { name: "setup", title: "Get started: the key, snippets and the first event", path: `${project}/setup` },
    { name: "dashboards", title: "Dashboards", path: `${project}/dashboards` },
    { name: "dashboard", title: "A dashboard: insight and text tiles on the grid", path: `${project}/dashboards/${workspace.dashboardId}`, dark: true },
    { name: "insights", title: "Saved insights", path: `${project}/insights` },
    { name: "insight-trends", title: "Insight builder: trends with a breakdown", path: `${project}/insights/${workspace.insightIds[2]}`, dark: true },
    { name: "insight-funnel", title: "Insight builder: a funnel", path: `${project}/insights/${workspace.insightIds[4]}` },
    { name: "insight-retention", title: "Insight builder: retention", path: `${project}/insights/${workspace.insightIds[5]}` },
    { name: "insight-lifecycle", title: "Insight builder: lifecycle", path: `${project}/insights/${workspace.insightIds[6]}` },
    { name: "insight-paths", title: "Insight builder: paths", path: `${project}/insights/${workspace.insightIds[9]}` },
    { name: "live-events", title: "Live events", path: `${project}/live`, dark: true },
    { name: "persons", title: "Persons", path: `${project}/persons` },
    { name: "person", title: "A person's profile", path: `${project}/persons/${workspace.personId}` },
    { name: "groups", title: "Groups", path: `${project}/groups` },
    { name: "cohorts", title: "Cohorts", path: `${project}/cohorts` },
    { name: "cohort", title: "A cohort's criteria", path: `${project}/cohorts/${workspace.cohortIds[1]}` },
    {
      name: "sql",
      title: "SQL editor with results",
      path: `${project}/sql?sql=${encodeURIComponent("SELECT event, count(*) AS events, count(DISTINCT distinct_id) AS users\nFROM events\nGROUP BY event\nORDER BY events DESC")}`,
      act: async (page) => {
        await page.getByRole("button", { name: "Run", exact: true }).click();
        await page.waitForSelector(".data-table");
      },
    },
    { name: "tracking-plan", title: "Tracking plan", path: `${project}/catalog` },
    { name: "ingestion-warnings", title: "Ingestion warnings", path: `${project}/ingestion-warnings` },
    { name: "feature-flags", title: "Feature flags", path: `${project}/flags` },
    { name: "feature-flag", title: "A flag's release conditions and variants", path: `${project}/flags/${workspace.flagIds.darkMode}`, dark: true },
    { name: "experiment", title: "An experiment", path: `${project}/experiments/${workspace.experimentId}` },
    { name: "project-settings", title: "Project settings: keys, flag secret keys", path: `${project}/settings` },
    { name: "organisation", title: "Organisation: members and invitations", path: `/orgs/${workspace.orgId}/settings` },
    { name: "tokens", title: "Personal access tokens", path: "/account/tokens" },
    { name: "sessions", title: "Sessions", path: "/account/sessions" },
  ];
}
