// The scopes a personal access token may carry and which each role holds (spec 1,
// Authentication 5-7), as server/control/auth/scopes.ts defines them; a test holds the two
// equal. The token form offers only the scopes the person's role in the organisation holds.
import type { Role } from "../../api/types.ts";

export const scopeDomains = [
  "projects", "org", "query", "insights", "dashboards", "cohorts", "catalog", "flags",
  "experiments", "replays", "persons", "alerts", "ai", "annotations", "usage",
] as const;

/** Named scopes are never implied by another; each says what it allows. */
export const namedScopes: readonly { scope: string; allows: string }[] = [
  { scope: "flags.production", allows: "make a production flag configuration live" },
  { scope: "experiments.ship", allows: "ship an experiment's winning variant" },
  { scope: "sql.raw", allows: "run SQL against the data" },
  { scope: "persons.pii", allows: "see personal-data properties unmasked" },
  { scope: "persons.erase", allows: "request erasures" },
  { scope: "export", allows: "export Parquet to your bucket" },
  { scope: "billing.write", allows: "change the plan and the spend cap" },
  { scope: "members.write", allows: "invite and remove members" },
];

const readScopes = scopeDomains.map((domain) => `${domain}:read`);
const writeScopes = scopeDomains.map((domain) => `${domain}:write`);
const allScopes = [...readScopes, ...writeScopes, ...namedScopes.map(({ scope }) => scope)];
const memberWriteExclusions = new Set(["projects:write", "org:write"]);

const roleScopes: Record<Role, ReadonlySet<string>> = {
  viewer: new Set(readScopes),
  member: new Set([...readScopes, ...writeScopes.filter((scope) => !memberWriteExclusions.has(scope)), "export", "sql.raw"]),
  admin: new Set(allScopes.filter((scope) => scope !== "billing.write")),
  owner: new Set(allScopes),
};

export const scopesOfRole = (role: Role): ReadonlySet<string> => roleScopes[role];

/** Sorted in the catalogue's order, as the API answers them. */
export const sortScopes = (scopes: Iterable<string>) => [...scopes].sort((a, b) => allScopes.indexOf(a) - allScopes.indexOf(b));
