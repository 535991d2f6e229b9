// The scope catalogue and what each role holds (spec 1, Authentication 5-7 and 10).

export const scopeDomains = [
  "projects", "org", "query", "insights", "dashboards", "cohorts", "catalog", "flags",
  "experiments", "replays", "persons", "alerts", "ai", "annotations", "usage",
] as const;

export const namedScopes = [
  "flags.production", "experiments.ship", "sql.raw", "persons.pii",
  "persons.erase", "export", "billing.write", "members.write",
] as const;

export const roles = ["viewer", "member", "admin", "owner"] as const;
export type Role = (typeof roles)[number];

export const readScopes = scopeDomains.map((domain) => `${domain}:read`);
export const writeScopes = scopeDomains.map((domain) => `${domain}:write`);
export const allScopes: readonly string[] = [...readScopes, ...writeScopes, ...namedScopes];
const knownScopes = new Set(allScopes);

export const isKnownScope = (scope: string): boolean => knownScopes.has(scope);

const memberWriteExclusions = new Set(["projects:write", "org:write"]);

const roleScopes: Record<Role, ReadonlySet<string>> = {
  viewer: new Set(readScopes),
  member: new Set([
    ...readScopes,
    ...writeScopes.filter((scope) => !memberWriteExclusions.has(scope)),
    "export",
    "sql.raw",
  ]),
  admin: new Set(allScopes.filter((scope) => scope !== "billing.write")),
  owner: new Set(allScopes),
};

export const scopesOfRole = (role: Role): ReadonlySet<string> => roleScopes[role];

/** Scopes a region token may carry: the ones the region API checks. */
export const regionalScopes: readonly string[] = [
  ...["query", "cohorts", "catalog", "replays", "persons", "ai", "experiments", "alerts"].flatMap((domain) => [
    `${domain}:read`,
    `${domain}:write`,
  ]),
  "sql.raw",
  "persons.pii",
  "persons.erase",
  "export",
];

/** Write implies read: `projects:write` also grants `projects:read`. Named scopes imply nothing. */
export function expandImplied(scopes: Iterable<string>): Set<string> {
  const expanded = new Set<string>();
  for (const scope of scopes) {
    expanded.add(scope);
    if (scope.endsWith(":write")) expanded.add(scope.replace(/:write$/, ":read"));
  }
  return expanded;
}

/** Effective scopes of a credential: what it was granted, cut down to what the role holds now. */
export function effectiveScopes(role: Role, granted: Iterable<string> | null): Set<string> {
  const held = scopesOfRole(role);
  if (granted === null) return new Set(held);
  return new Set([...expandImplied(granted)].filter((scope) => held.has(scope)));
}

/** Sorted in catalogue order, so responses are stable. */
export function sortScopes(scopes: Iterable<string>): string[] {
  const order = new Map(allScopes.map((scope, index) => [scope, index]));
  return [...scopes].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}
