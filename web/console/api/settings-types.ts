// The shapes of the settings pages' answers (spec 1: accounts, members, sessions, tokens, keys;
// the README's decisions for TokenDto and SessionList).
import type { KeyDto, Role } from "./types.ts";

export interface RotateKeyResponse {
  /** The replacement key. */
  created: KeyDto;
  /** The replaced key; its revoked_at stays null when keep_old was set. */
  revoked: KeyDto;
}

export interface FlagSecretKeyDto {
  id: string;
  project_id: string;
  environment: string;
  name: string;
  /** The secret's first characters, to tell keys apart. */
  prefix: string;
  created_at: string;
  created_by: string | null;
  revoked_at: string | null;
}

export interface FlagSecretKeyCreated {
  key: FlagSecretKeyDto;
  /** Shown once. */
  secret: string;
}

export interface MemberDto {
  id: string;
  user_id: string;
  name: string;
  email: string;
  role: Role;
  created_at: string;
}

export interface InvitationDto {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  status: "pending" | "accepted" | "revoked" | "expired";
  expires_at: string;
  created_at: string;
}

export interface MembersResponse {
  members: MemberDto[];
  /** Pending invitations; listed only for callers who may manage members. */
  invitations: InvitationDto[];
}

export interface TokenDto {
  id: string;
  name: string;
  org_id: string;
  prefix: string;
  scopes: string[];
  /** null: every project of the organisation. */
  project_ids: string[] | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedTokenResponse {
  /** Shown exactly once. */
  secret: string;
  token: TokenDto;
}

export interface CreateTokenRequest {
  name: string;
  org_id: string;
  scopes: string[];
  project_ids?: string[];
  expires_in_days?: number;
}

export interface SessionDto {
  id: string;
  /** The session making the request. */
  current: boolean;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  /** Coarse city and country, never an IP address. */
  location: string | null;
  user_agent: string | null;
}
