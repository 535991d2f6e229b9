import { notFound } from "../http/errors.ts";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const newId = (): string => crypto.randomUUID();

export const isUuid = (text: string): boolean => uuidPattern.test(text);

/** A malformed id is answered exactly like another tenant's: 404, never 400 or 403. */
export function requireUuid(id: string, what: string): string {
  if (!isUuid(id)) throw notFound(what);
  return id.toLowerCase();
}

export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  return slug || "untitled";
}

/** First free slug among `base`, `base-2`, `base-3`, ... */
export function uniqueSlug(base: string, taken: (slug: string) => boolean): string {
  if (!taken(base)) return base;
  for (let suffix = 2; ; suffix++) {
    const candidate = `${base}-${suffix}`;
    if (!taken(candidate)) return candidate;
  }
}
