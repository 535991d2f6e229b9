// The revenue providers whose webhooks the ingest route serves, by their path segment in
// `/wh/{provider}/{token}`. A provider without a module here answers 404 like an unknown token.
// Modules that need the deployment's settings (the App Store's trusted root certificates) are
// built at start-up and passed as `configured`.
import type { RevenueProvider, RevenueProviderModule } from "../provider.ts";
import { playStoreModule } from "./play-store.ts";
import { revenueCat } from "./revenuecat.ts";
import { stripeModule } from "./stripe.ts";

/** The modules that need no setting. */
const settingFree: readonly RevenueProviderModule[] = [stripeModule, revenueCat, playStoreModule];

export function revenueProviderModules(configured: readonly RevenueProviderModule[] = []): ReadonlyMap<RevenueProvider, RevenueProviderModule> {
  return new Map([...settingFree, ...configured].map((module) => [module.provider, module]));
}
