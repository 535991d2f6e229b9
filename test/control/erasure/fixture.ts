// What the control plane's erasure tests share: the real service with an owner, an eu project
// and tokens; a stand-in for the eu region's erase (answering a report the way the region
// does, or holding, or refusing, as a test needs) installed in place of the real link; and
// polling a request until it reaches a state.
import { expect } from "bun:test";
import { sha256Hex } from "../../../server/crypto.ts";
import { RegionRefusal, type RegionErasureReport, type RegionErasureRequest, type RegionLink } from "../../../server/region/region-link.ts";
import { createProject, createToken, signUp, v1, type SignedUpUser } from "../../helpers/accounts.ts";
import type { TestService } from "../../helpers/service.ts";

export const erasurePath = (projectId: string) => `/v1/projects/${projectId}/erasure-requests`;

export interface ErasureFixture {
  owner: SignedUpUser;
  projectId: string;
  dataId: number;
  /** A token with persons.erase (and nothing else). */
  secret: string;
}

export async function erasureFixture(service: TestService): Promise<ErasureFixture> {
  const owner = await signUp(service, "Erasure Owner");
  const { project } = await createProject(owner, "Erasable");
  const { secret } = await createToken(owner, ["persons.erase"]);
  return { owner, projectId: project.id, dataId: project.data_id, secret };
}

/** The region's identifier hashes for a request (sorted), as the region reports them. */
export const identifierHashes = (request: Pick<RegionErasureRequest, "project_id" | "person_ids" | "distinct_ids">) =>
  [
    ...request.person_ids.map((id) => sha256Hex(`${request.project_id}:person_id:${id}`)),
    ...request.distinct_ids.map((id) => sha256Hex(`${request.project_id}:distinct_id:${id}`)),
  ].sort();

export const removedCounts = {
  events_parquet: 12, events_segments: 3, events_unsealed: 1, wal_records: 1, persons: 1, distinct_ids: 2, merges: 1, group_links: 0,
  cohort_memberships: 1, replay_sessions: 1, replay_chunks: 4, ingestion_warning_examples: 0, live_events: 2, cache_entries: 5,
  ask_messages: 0,
};

export const fakeReport = (request: RegionErasureRequest): RegionErasureReport => ({
  erasure_id: request.erasure_id,
  identifier_hashes: identifierHashes(request),
  persons_erased: request.person_ids.length + request.distinct_ids.length,
  removed: removedCounts,
  manifest_digest: sha256Hex(`manifest after ${request.erasure_id}`),
  completed_at: new Date().toISOString(),
});

type Progress = (stage: string, done: number, total: number) => void;
/** `real` is the eu region's own erase, for a stand-in that only holds or watches. */
export type FakeErase = (request: RegionErasureRequest, onProgress: Progress | undefined, real: RegionLink["erase"]) => Promise<RegionErasureReport>;

/** Puts `erase` in place of the eu region's own (every other method is the real link's); answers the requests it was given. */
export function replaceErase(service: TestService, erase: FakeErase): RegionErasureRequest[] {
  const links = service.ctx.regions as Map<string, RegionLink>;
  const real = links.get("eu")!;
  const seen: RegionErasureRequest[] = [];
  const stand: RegionLink = Object.assign(Object.create(real), {
    erase: (request: RegionErasureRequest, onProgress?: Progress) => {
      seen.push(request);
      return erase(request, onProgress, (...args) => real.erase(...args));
    },
  });
  links.set("eu", stand);
  return seen;
}

export const refuse = (message: string): FakeErase => async () => {
  throw new RegionRefusal(400, "bad_request", message);
};

/** Polls GET …/erasure-requests/{id} until `done` holds (or the deadline passes). */
export async function awaitErasure(service: TestService, fixture: ErasureFixture, id: string, done: (body: any) => boolean, withinMs = 20_000): Promise<any> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const reply = await v1(service, fixture.secret, "GET", `${erasurePath(fixture.projectId)}/${id}`);
    expect(reply.status).toBe(200);
    if (done(reply.body)) return reply.body;
    if (Date.now() > deadline) throw new Error(`erasure ${id} did not get there in time: ${JSON.stringify(reply.body)}`);
    await Bun.sleep(20);
  }
}

export const isEnded = (body: { status: string }) => body.status === "completed" || body.status === "failed";
