// Seeded flag requests as posthog-node sends them for remote evaluation: Zipf-distributed
// persons from a pool, each always with the same person properties (the keys the flags'
// conditions read) and the same company, whose properties travel as group properties.
// Bodies are serialised up front so the driver, which shares the machine, only sends them.
import { mulberry32, zipf } from "../ingest/generator.ts";

export type PropertyDomain =
  | { key: string; kind: "text"; values: string[] }
  | { key: string; kind: "number"; min: number; max: number }
  | { key: string; kind: "boolean" };

export const personProperties: PropertyDomain[] = [
  { key: "plan", kind: "text", values: ["free", "starter", "growth", "scale"] },
  { key: "country", kind: "text", values: ["GB", "US", "DE", "FR", "PK", "AE", "IN", "BR"] },
  { key: "email", kind: "text", values: ["ann@acme.com", "bo@globex.com", "cy@initech.io", "di@example.org", "ed@hooli.xyz"] },
  { key: "browser", kind: "text", values: ["Chrome", "Safari", "Firefox", "Edge"] },
  { key: "app_version", kind: "text", values: ["1.2.3", "1.3.0", "2.0.0-beta+7", "2.1.4"] },
  { key: "age", kind: "number", min: 16, max: 80 },
  { key: "sessions", kind: "number", min: 0, max: 500 },
  { key: "beta_opt_in", kind: "boolean" },
];

export const companyProperties: PropertyDomain[] = [
  { key: "industry", kind: "text", values: ["retail", "fintech", "health", "media", "logistics"] },
  { key: "tier", kind: "text", values: ["self-serve", "business", "enterprise"] },
  { key: "employees", kind: "number", min: 1, max: 5000 },
];

/** Share of property values left out, so absent properties and is_not_set get exercised. */
const absentShare = 0.15;
const companies = 2_000;

function properties(domains: PropertyDomain[], seed: number): Record<string, string | number | boolean> {
  const random = mulberry32(seed);
  const out: Record<string, string | number | boolean> = {};
  for (const domain of domains) {
    if (random() < absentShare) continue;
    if (domain.kind === "number") out[domain.key] = domain.min + Math.floor(random() * (domain.max - domain.min + 1));
    else if (domain.kind === "boolean") out[domain.key] = random() < 0.5;
    else out[domain.key] = domain.values[Math.floor(random() * domain.values.length)]!;
  }
  return out;
}

export interface RequestOptions {
  seed: number;
  token: string;
  persons: number;
  /** How many distinct bodies to prepare; the driver cycles through them. */
  bodies: number;
}

/** Seeded `/flags?v=2` bodies: `{token, distinct_id, groups, person_properties, group_properties}`. */
export function flagRequestBodies(options: RequestOptions): string[] {
  const random = mulberry32(options.seed);
  const person = zipf(options.persons, 1.1, random);
  return Array.from({ length: options.bodies }, () => {
    const rank = person();
    // A person's properties and company depend only on the person, as they would in a product.
    const company = rank % companies;
    return JSON.stringify({
      token: options.token,
      distinct_id: `person-${rank}`,
      groups: { company: `company-${company}` },
      person_properties: properties(personProperties, options.seed * 1_000_003 + rank),
      group_properties: { company: properties(companyProperties, options.seed * 7_919 + company + 1) },
    });
  });
}
