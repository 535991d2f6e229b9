// Who an erasure request names, as the region stores them. The drop-in paths store an email
// address or phone number sent as a distinct id as its keyed pseudonym (server/ingest/contact-ids.ts),
// so a request naming the address must also name that pseudonym, or it would find no one. The
// address itself stays among the subjects: the report hashes the id as the request gave it.
import type { ErasureSubjects } from "../../../storage/erasure-journal.ts";
import type { RegionStore } from "../../../storage/region-store.ts";
import { contactKind, pseudonym } from "../../ingest/pseudonyms.ts";

/** The named distinct ids, each followed by the pseudonym ingest stores for it when it is a contact. */
export function storedDistinctIds(distinctIds: readonly string[], key: () => Uint8Array): string[] {
  const stored: string[] = [];
  for (const id of distinctIds) {
    stored.push(id);
    const kind = contactKind(id);
    if (kind !== null) stored.push(pseudonym(key(), kind, id));
  }
  return stored;
}

/** Everything the request's identifiers stand for in the region's file. */
export function resolveErasureSubjects(store: RegionStore, projectId: string, personIds: readonly string[], distinctIds: readonly string[]): ErasureSubjects {
  const named = storedDistinctIds(distinctIds, () => store.projectSecrets.pseudonymKey(projectId));
  return store.personErasure.resolve(projectId, personIds, named);
}
