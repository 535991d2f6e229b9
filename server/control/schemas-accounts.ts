// Response schemas of accounts, sessions, members and personal access tokens (spec 1,
// Resources; the shapes the spec leaves "not shown" are the README's).
import { t } from "elysia";
import { OrgDto, TokenDto, UserDto } from "./schemas.ts";

const id = () => t.String({ format: "uuid" });
const dateTime = () => t.String({ format: "date-time" });
const Role = t.Union([t.Literal("viewer"), t.Literal("member"), t.Literal("admin"), t.Literal("owner")]);

export const MeResponse = t.Object({ user: UserDto, orgs: t.Array(OrgDto) }, { title: "MeResponse" });

export const SessionDto = t.Object(
  {
    id: id(),
    current: t.Boolean({ description: "The session making the request" }),
    created_at: dateTime(),
    expires_at: dateTime(),
    last_seen_at: dateTime(),
    location: t.Union([t.String({ description: "Coarse city and country, never an IP address" }), t.Null()]),
    user_agent: t.Union([t.String(), t.Null()]),
  },
  { title: "SessionDto" },
);
export const SessionList = t.Object({ sessions: t.Array(SessionDto, { description: "Live sessions, newest first" }) }, { title: "SessionList" });
export const RevokeOthersResponse = t.Object({ revoked: t.Integer({ minimum: 0, format: "int64" }) }, { title: "RevokeOthersResponse" });
export const AcceptedResponse = t.Object({ status: t.Literal("accepted") }, { title: "AcceptedResponse" });

export const MemberDto = t.Object(
  { id: id(), user_id: id(), name: t.String(), email: t.String(), role: Role, created_at: dateTime() },
  { title: "MemberDto" },
);
export const InvitationDto = t.Object(
  {
    id: id(),
    org_id: id(),
    email: t.String(),
    role: Role,
    status: t.Union([t.Literal("pending"), t.Literal("accepted"), t.Literal("revoked"), t.Literal("expired")]),
    expires_at: dateTime(),
    created_at: dateTime(),
  },
  { title: "InvitationDto" },
);
export const MembersResponse = t.Object(
  { members: t.Array(MemberDto), invitations: t.Array(InvitationDto, { description: "Pending invitations; listed only for callers who may manage members" }) },
  { title: "MembersResponse" },
);

export const TokenList = t.Object({ tokens: t.Array(TokenDto, { description: "The caller's live tokens, newest first" }) }, { title: "TokenList" });
export const CreatedTokenResponse = t.Object(
  { secret: t.String({ description: "Shown exactly once; only its hash is stored" }), token: TokenDto },
  { title: "CreatedTokenResponse" },
);

export const ConnectionDto = t.Object(
  {
    id: t.String({ format: "uuid", description: "The grant id" }),
    client_id: t.String(),
    client_name: t.String(),
    org_id: t.String({ format: "uuid" }),
    scopes: t.Array(t.String()),
    created_at: t.String({ format: "date-time" }),
    last_used_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  },
  { title: "ConnectionDto", description: "An application connected through OAuth: the grant the person approved" },
);
export const ConnectionList = t.Object({ connections: t.Array(ConnectionDto, { description: "Live grants, newest first" }) }, { title: "ConnectionList" });
