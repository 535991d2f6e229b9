// Spec 1's IntegrationDto, CreateIntegrationRequest, UpdateIntegrationRequest and
// IntegrationList. The per-provider rules on secret and config are in integration-config.ts
// (a schema cannot say "required for this provider only" in a way clients read well).
import { t } from "elysia";
import { nullable } from "../schemas.ts";
import { revenueProviders } from "../../ingest/revenue/provider.ts";
import { integrationNameLengthMax, integrationSecretLengthMax } from "./integration-config.ts";

const Provider = t.Union(revenueProviders.map((provider) => t.Literal(provider)), {
  description: "stripe (payment provider), revenuecat (subscription provider), app_store, play_store",
});
const Status = t.Union([t.Literal("active"), t.Literal("disabled")], { description: "disabled: the webhook URL answers 404" });
const Config = t.Record(t.String(), t.Unknown(), { description: "Non-secret settings per provider (docs/revenue.md)" });
const Name = t.String({ minLength: 1, maxLength: integrationNameLengthMax });
const Secret = t.String({
  minLength: 1,
  maxLength: integrationSecretLengthMax,
  description: "stripe: the endpoint signing secret (whsec_…); revenuecat: the Authorization header value set there; app stores take none. Never returned.",
});

export const IntegrationDto = t.Object(
  {
    id: t.String({ format: "uuid" }),
    project_id: t.String({ format: "uuid" }),
    provider: Provider,
    status: Status,
    has_secret: t.Boolean(),
    region_synced: t.Boolean({ description: "The region's webhook route has the integration's latest state" }),
    webhook_url: t.String({ description: "{ingest_url}/wh/{provider}/{token}: paste it into the provider's webhook settings" }),
    config: Config,
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
    name: nullable(t.String()),
    secret_last4: nullable(t.String()),
  },
  { title: "IntegrationDto" },
);

export const IntegrationList = t.Object({ integrations: t.Array(IntegrationDto) }, { title: "IntegrationList" });

export const CreateIntegrationRequest = t.Object(
  { provider: Provider, config: t.Optional(Config), name: t.Optional(nullable(Name)), secret: t.Optional(Secret) },
  { title: "CreateIntegrationRequest", additionalProperties: false },
);

export const UpdateIntegrationRequest = t.Object(
  { config: t.Optional(Config), name: t.Optional(nullable(Name)), secret: t.Optional(Secret), status: t.Optional(Status) },
  { title: "UpdateIntegrationRequest", additionalProperties: false },
);

export type CreateIntegrationInput = typeof CreateIntegrationRequest.static;
export type UpdateIntegrationInput = typeof UpdateIntegrationRequest.static;
