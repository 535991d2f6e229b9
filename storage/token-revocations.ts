// The region's copy of region-token revocations (same region.sqlite). Region tokens are
// verified offline, so without these a token would keep working until it expires (up to 15
// minutes) after its project is deleted, its owner leaves the organisation or loses a role, or
// the access token it was cut from is revoked. The control plane pushes each revocation; the
// region keeps it until every token it covers has expired, in memory for the request path and
// on disk so a restart does not bring revoked tokens back.
import type { Database } from "bun:sqlite";

export const revocationReasons = ["project_deleted", "member_removed", "role_changed", "access_token_revoked"] as const;
export type RevocationReason = (typeof revocationReasons)[number];

/** What the control plane sends. It covers the tokens whose claims match every non-null subject field. */
export interface TokenRevocation {
  id: string;
  orgId: string | null;
  userId: string | null;
  projectId: string | null;
  accessTokenId: string | null;
  /** Unix seconds: covers tokens issued (`iat`) at or before this. */
  issuedUpTo: number;
  /** Unix seconds: no token it covers is valid past this, so it can be forgotten then. */
  keepUntil: number;
  /** null: covered tokens are refused; otherwise they keep at most these scopes. */
  scopes: string[] | null;
  reason: RevocationReason;
}

/** The claims of a region token that revocations are matched against. */
export interface RevocableToken {
  orgId: string;
  userId: string;
  projectId: string;
  accessTokenId: string | null;
  issuedAt: number;
}

// Its own table, created when missing: it holds nothing older than a token's life, so it never
// needs a data migration and stays out of RegionStore's schema versions.
const tokenRevocationSchema = `CREATE TABLE IF NOT EXISTS token_revocations (
  id TEXT PRIMARY KEY,
  org_id TEXT,
  user_id TEXT,
  project_id TEXT,
  access_token_id TEXT,
  issued_up_to INTEGER NOT NULL,
  keep_until INTEGER NOT NULL,
  scopes TEXT,
  reason TEXT NOT NULL
)`;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Where a revocation is filed; one with no subject would cover every token and is refused. */
export const subjectKeys = (revocation: Pick<TokenRevocation, "orgId" | "userId" | "projectId" | "accessTokenId">): string[] => {
  const keys: string[] = [];
  if (revocation.projectId !== null) keys.push(`project:${revocation.projectId}`);
  if (revocation.orgId !== null && revocation.userId !== null) keys.push(`member:${revocation.orgId}:${revocation.userId}`);
  if (revocation.accessTokenId !== null) keys.push(`access-token:${revocation.accessTokenId}`);
  return keys;
};

function covers(revocation: TokenRevocation, token: RevocableToken, now: number): boolean {
  return (
    now <= revocation.keepUntil &&
    token.issuedAt <= revocation.issuedUpTo &&
    (revocation.orgId === null || revocation.orgId === token.orgId) &&
    (revocation.userId === null || revocation.userId === token.userId) &&
    (revocation.projectId === null || revocation.projectId === token.projectId) &&
    (revocation.accessTokenId === null || revocation.accessTokenId === token.accessTokenId)
  );
}

export class TokenRevocationStore {
  /** Live revocations by subject (project, member or access token): every request looks here. */
  private readonly bySubject = new Map<string, TokenRevocation[]>();
  private readonly ids = new Set<string>();

  constructor(private readonly db: Database) {
    db.exec(tokenRevocationSchema);
    db.query("DELETE FROM token_revocations WHERE keep_until < ?").run(nowSeconds());
    for (const row of db.query("SELECT * FROM token_revocations").all() as Record<string, unknown>[]) {
      this.remember({
        id: row.id as string,
        orgId: row.org_id as string | null,
        userId: row.user_id as string | null,
        projectId: row.project_id as string | null,
        accessTokenId: row.access_token_id as string | null,
        issuedUpTo: row.issued_up_to as number,
        keepUntil: row.keep_until as number,
        scopes: row.scopes === null ? null : JSON.parse(row.scopes as string),
        reason: row.reason as RevocationReason,
      });
    }
  }

  /** Stores revocations (idempotent by id: the control plane may push one again) and forgets expired ones. */
  add(revocations: TokenRevocation[]): void {
    const now = nowSeconds();
    const insert = this.db.query(`INSERT OR IGNORE INTO token_revocations
      (id, org_id, user_id, project_id, access_token_id, issued_up_to, keep_until, scopes, reason)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const fresh = revocations.filter((revocation) => revocation.keepUntil >= now && !this.ids.has(revocation.id));
    this.db.transaction(() => {
      this.db.query("DELETE FROM token_revocations WHERE keep_until < ?").run(now);
      for (const r of fresh) {
        insert.run(r.id, r.orgId, r.userId, r.projectId, r.accessTokenId, r.issuedUpTo, r.keepUntil, r.scopes === null ? null : JSON.stringify(r.scopes), r.reason);
      }
    })();
    this.forgetExpired(now);
    for (const revocation of fresh) this.remember(revocation);
  }

  /** The live revocations that cover this token. */
  covering(token: RevocableToken): TokenRevocation[] {
    const now = nowSeconds();
    const candidates = new Set(subjectKeys(token).flatMap((key) => this.bySubject.get(key) ?? []));
    return [...candidates].filter((revocation) => covers(revocation, token, now));
  }

  private remember(revocation: TokenRevocation): void {
    this.ids.add(revocation.id);
    for (const key of subjectKeys(revocation)) {
      const list = this.bySubject.get(key) ?? [];
      list.push(revocation);
      this.bySubject.set(key, list);
    }
  }

  private forgetExpired(now: number): void {
    for (const [key, list] of this.bySubject) {
      const live = list.filter((revocation) => revocation.keepUntil >= now);
      for (const gone of list) if (gone.keepUntil < now) this.ids.delete(gone.id);
      if (live.length) this.bySubject.set(key, live);
      else this.bySubject.delete(key);
    }
  }
}
