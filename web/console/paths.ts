// The console's URLs, in one place: pages link with these, and the emailed links
// (server/control/services/accounts.ts, members.ts) land on the matching routes.

const withQuery = (path: string, query: Record<string, string | null | undefined>) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
};

export const paths = {
  home: "/",
  /** Home, opening a project of this organisation. */
  orgHome: (orgId: string) => withQuery("/", { org: orgId }),
  login: (next?: string | null) => withQuery("/login", { next }),
  signup: (next?: string | null) => withQuery("/signup", { next }),
  forgotPassword: "/forgot-password",
  resetPassword: "/reset-password",
  verifyEmail: "/verify-email",
  acceptInvitation: "/invitations/accept",
  newProject: (orgId?: string | null) => withQuery("/projects/new", { org: orgId }),
  project: (projectId: string) => `/projects/${encodeURIComponent(projectId)}`,
  projectSetup: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/setup`,
  projectLive: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/live`,
  /** The SQL page, with a statement to open it on (the page keeps the one being edited in `sql`). */
  projectSql: (projectId: string, sql?: string | null) => withQuery(`/projects/${encodeURIComponent(projectId)}/sql`, { sql }),
  projectCatalog: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/catalog`,
  projectCatalogEvent: (projectId: string, eventId: string) => `/projects/${encodeURIComponent(projectId)}/catalog/${encodeURIComponent(eventId)}`,
  projectIngestionWarnings: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/ingestion-warnings`,
  flags: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/flags`,
  flag: (projectId: string, flagId: string) => `/projects/${encodeURIComponent(projectId)}/flags/${encodeURIComponent(flagId)}`,
  experiments: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/experiments`,
  /** The experiments list with "New experiment" open on this flag. */
  newExperiment: (projectId: string, flagId: string) => withQuery(`/projects/${encodeURIComponent(projectId)}/experiments`, { new: "1", flag: flagId }),
  experiment: (projectId: string, experimentId: string) => `/projects/${encodeURIComponent(projectId)}/experiments/${encodeURIComponent(experimentId)}`,
  /** Session recordings, filtered by GET /replays's parameters (the list keeps its filters in the query). */
  replays: (projectId: string, filter: Record<string, string | undefined> = {}) => withQuery(`/projects/${encodeURIComponent(projectId)}/replays`, filter),
  /** A recording's player, opened at `at` (an instant during the session, as an event's timestamp) when given. */
  replay: (projectId: string, replayId: string, at?: string | null) => withQuery(`/projects/${encodeURIComponent(projectId)}/replays/${encodeURIComponent(replayId)}`, { at }),
  persons: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/persons`,
  person: (projectId: string, personId: string) => `/projects/${encodeURIComponent(projectId)}/persons/${encodeURIComponent(personId)}`,
  /** The groups of a project, opened on a group type's tab, searched by part of the key. */
  groups: (projectId: string, typeIndex?: number, search?: string) =>
    withQuery(`/projects/${encodeURIComponent(projectId)}/groups`, { type: typeIndex?.toString(), search }),
  /**
   * A group's profile. The key goes in the query, not the path: a key may be any text, and a
   * path segment of "." or ".." (or "%2E%2E") would be resolved away by the browser.
   */
  group: (projectId: string, typeIndex: number, key: string) => withQuery(`/projects/${encodeURIComponent(projectId)}/groups/${typeIndex}`, { key }),
  cohorts: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/cohorts`,
  newCohort: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/cohorts/new`,
  cohort: (projectId: string, cohortId: string) => `/projects/${encodeURIComponent(projectId)}/cohorts/${encodeURIComponent(cohortId)}`,
  insights: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/insights`,
  newInsight: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/insights/new`,
  dashboards: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/dashboards`,
  dashboard: (projectId: string, dashboardId: string) => `/projects/${encodeURIComponent(projectId)}/dashboards/${encodeURIComponent(dashboardId)}`,
  insight: (projectId: string, insightId: string) => `/projects/${encodeURIComponent(projectId)}/insights/${encodeURIComponent(insightId)}`,
  /** Findings the region raised, newest first; `unacknowledged` keeps those nobody acknowledged yet. */
  findings: (projectId: string, filter: { rule?: string | null; unacknowledged?: boolean } = {}) =>
    withQuery(`/projects/${encodeURIComponent(projectId)}/findings`, { rule: filter.rule, unacknowledged: filter.unacknowledged ? "1" : null }),
  finding: (projectId: string, findingId: string) => `/projects/${encodeURIComponent(projectId)}/findings/${encodeURIComponent(findingId)}`,
  findingRules: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/findings/rules`,
  findingDestinations: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/findings/destinations`,
  /** Ask, on a conversation when given. */
  ask: (projectId: string, conversationId?: string | null) => withQuery(`/projects/${encodeURIComponent(projectId)}/ask`, { conversation: conversationId }),
  projectSettings: (projectId: string) => `/projects/${encodeURIComponent(projectId)}/settings`,
  orgSettings: (orgId: string) => `/orgs/${encodeURIComponent(orgId)}/settings`,
  orgBilling: (orgId: string) => `/orgs/${encodeURIComponent(orgId)}/billing`,
  account: "/account",
  accountSessions: "/account/sessions",
  accountTokens: "/account/tokens",
  /** Applications connected through OAuth. */
  accountConnections: "/account/connections",
  /** The OAuth consent page of an authorization request (server/control/oauth/authorization.ts sends browsers here). */
  consent: (requestId: string) => `/consent/${encodeURIComponent(requestId)}`,
  /** The messaging gateway's pages, on one of its tabs (a project key's; the root key has one view). */
  messaging: (tab?: string | null) => withQuery("/messaging", { tab }),
  /** The mail API's pages, on one of its tabs. Not /mail: that prefix is the mail API's own. */
  email: (tab?: string | null) => withQuery("/email", { tab }),
};

/**
 * Where to go after signing in: `next` when it is a path of this console, else home. A full
 * URL or `//host` is refused, so a crafted link cannot send a person to another site.
 */
export function safeNext(next: string | null | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : paths.home;
}

/** The current path and query, to come back to after signing in. */
export const currentLocation = () => `${location.pathname}${location.search}`;
