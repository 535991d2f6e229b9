import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { RegionStore } from "../../storage/region-store.ts";
import type { RevocableToken, TokenRevocation } from "../../storage/token-revocations.ts";

const dirs: string[] = [];
const stores: RegionStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openRegion(path?: string) {
  if (!path) {
    const dir = mkdtempSync(join(tmpdir(), "revocations-"));
    dirs.push(dir);
    path = join(dir, "region.sqlite");
  }
  const store = new RegionStore(path);
  stores.push(store);
  return { path, revocations: store.tokenRevocations, store };
}

const now = () => Math.floor(Date.now() / 1000);
const org = "0f8e1a52-1d6b-4c55-9a7c-0d3c1f2b9e01";
const user = "1a2d2b63-2e7c-4d66-8b8d-1e4d2a3c0f02";
const project = "2b3e3c74-3f8d-4e77-9c9e-2f5e3b4d1a03";
const accessToken = "3c4f4d85-4a9e-4f88-8daf-3a6f4c5e2b04";

const token = (overrides: Partial<RevocableToken> = {}): RevocableToken => ({
  orgId: org, userId: user, projectId: project, accessTokenId: accessToken, issuedAt: now() - 60, ...overrides,
});

const revocation = (overrides: Partial<TokenRevocation>): TokenRevocation => ({
  id: crypto.randomUUID(), orgId: null, userId: null, projectId: null, accessTokenId: null,
  issuedUpTo: now(), keepUntil: now() + 900, scopes: null, reason: "project_deleted", ...overrides,
});

describe("TokenRevocationStore", () => {
  test("covers the tokens that match every subject field and were issued at or before issuedUpTo", () => {
    const { revocations } = openRegion();
    const member = revocation({ orgId: org, userId: user, reason: "member_removed" });
    revocations.add([member]);
    expect(revocations.covering(token())).toEqual([member]);
    expect(revocations.covering(token({ issuedAt: member.issuedUpTo }))).toEqual([member]);
    expect(revocations.covering(token({ issuedAt: member.issuedUpTo + 1 }))).toEqual([]);
    expect(revocations.covering(token({ userId: crypto.randomUUID() }))).toEqual([]);
    expect(revocations.covering(token({ orgId: crypto.randomUUID() }))).toEqual([]);

    const byProject = revocation({ projectId: project });
    const byAccessToken = revocation({ accessTokenId: accessToken, reason: "access_token_revoked" });
    revocations.add([byProject, byAccessToken]);
    expect(new Set(revocations.covering(token()))).toEqual(new Set([member, byProject, byAccessToken]));
    expect(revocations.covering(token({ orgId: crypto.randomUUID(), projectId: crypto.randomUUID(), accessTokenId: null }))).toEqual([]);
  });

  test("the same revocation pushed twice is kept once", () => {
    const { revocations } = openRegion();
    const once = revocation({ projectId: project });
    revocations.add([once]);
    revocations.add([once]);
    expect(revocations.covering(token())).toEqual([once]);
  });

  test("is kept across a reopen; one past keepUntil is neither taken nor kept on disk", () => {
    const { path, store, revocations } = openRegion();
    const kept = revocation({ projectId: project });
    const late = revocation({ orgId: org, userId: user, issuedUpTo: now() - 1000, keepUntil: now() - 100, reason: "member_removed" });
    revocations.add([kept, late]);
    expect(revocations.covering(token({ issuedAt: now() - 2000 }))).toEqual([kept]);
    store.close();
    stores.splice(stores.indexOf(store), 1);

    // One that expired while the region was down.
    const db = new Database(path);
    db.query("INSERT INTO token_revocations (id, org_id, user_id, issued_up_to, keep_until, reason) VALUES (?, ?, ?, ?, ?, ?)")
      .run(late.id, org, user, late.issuedUpTo, late.keepUntil, late.reason);
    db.close();
    const reopened = openRegion(path);
    expect(reopened.revocations.covering(token({ issuedAt: now() - 2000 }))).toEqual([kept]);
    reopened.store.close();
    stores.splice(stores.indexOf(reopened.store), 1);
    const check = new Database(path, { readonly: true });
    try {
      expect(check.query("SELECT id FROM token_revocations").all()).toEqual([{ id: kept.id }]);
    } finally {
      check.close();
    }
  });
});
