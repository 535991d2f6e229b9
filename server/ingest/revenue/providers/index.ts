// The revenue providers whose webhooks the ingest route serves, by their path segment in
// `/wh/{provider}/{token}`. A provider not listed here answers 404 like an unknown token.
import type { RevenueProvider, RevenueProviderModule } from "../provider.ts";
import { revenueCat } from "./revenuecat.ts";

export const providerModules: ReadonlyMap<RevenueProvider, RevenueProviderModule> = new Map(
  [revenueCat].map((module) => [module.provider, module]),
);
